/**
 * The client: one typed method per REST operation (from ./generated.ts), each a `fetch` with the
 * key, an `Idempotency-Key` on every call that moves money, and retries that cannot charge twice.
 *
 * Which calls are retried, and on what:
 * - reads (GET), and POST/PATCH calls that carry an Idempotency-Key (every spending call gets one
 *   automatically; pass `idempotencyKey` for others): on network errors, 5xx, 429 and
 *   `idempotency_in_flight`; the same key goes with every attempt, so the server replays the
 *   first answer instead of acting twice (it keeps keys only for calls made with a key, so a
 *   call without one is treated like the next case);
 * - any other POST/PATCH: only on 429 (refused before it ran), since repeating it could act twice.
 * A 429 or 503 waits as long as its Retry-After says (up to `maxRetryAfterMs`).
 */
import { errorFromResponse, isAbort, KinoraNetworkError } from "./errors.js";
import { OPERATIONS, type OperationId, type Operations } from "./generated.js";
import { type KindWaits, kindWaits } from "./kinds/generated.js";
import { backoffMs, type RetryOptions, retryAfterMs, sleep } from "./retry.js";
import { type UploadOptions, type UploadSource, type UploadTarget, upload } from "./upload.js";
import { type PartsUploadOptions, type PartsUploadResult, uploadParts } from "./upload-parts.js";

/** How to reach a kinora server. */
export interface KinoraOptions extends RetryOptions {
  /** The server's base URL, e.g. `https://kinora.example` (no trailing path needed). */
  baseUrl: string;
  /** A wallet key (pmk_…), an agent key (pak_…), or the operator's admin token. */
  apiKey?: string;
  /** The fetch to use (default: the global one); handy for proxies and tests. */
  fetch?: typeof fetch;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  /** User-Agent sent with every call (where the runtime allows setting it). */
  userAgent?: string;
}

/** Per-call options. */
export interface CallOptions extends RetryOptions {
  /** Aborts the call, its retries and their waits; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The Idempotency-Key to send (default: a fresh UUID on spending calls, none on others). */
  idempotencyKey?: string;
  /** Another key for this call only. */
  apiKey?: string;
  /** Extra headers (e.g. `payment-signature` for an x402 payment). */
  headers?: Record<string, string>;
}

/** An operation's input type. */
export type Input<K extends OperationId> = Operations[K]["input"];
/** An operation's answer type. */
export type Output<K extends OperationId> = Operations[K]["output"];

/** The arguments of an operation's method: the input may be left out when nothing is required. */
export type MethodArgs<K extends OperationId> =
  // biome-ignore lint/complexity/noBannedTypes: "every field optional" is exactly `{} extends T`
  {} extends Input<K>
    ? [input?: Input<K>, options?: CallOptions]
    : [input: Input<K>, options?: CallOptions];

/** One method per operation, named by its operationId. */
export type OperationMethods = {
  [K in OperationId]: (...args: MethodArgs<K>) => Promise<Output<K>>;
};

/**
 * A client: the operation methods plus the upload helpers and a wait helper per job kind
 * (`waitForRestore`, `waitForClip`, … generated from the server's registry: kinds/generated.ts).
 */
export interface Kinora extends OperationMethods, KindWaits {
  /** Calls an operation by id (what the named methods do). */
  call<K extends OperationId>(id: K, ...args: MethodArgs<K>): Promise<Output<K>>;
  /**
   * Sends a file (a path, in Node) or a Blob to an upload link (the `upload_url` and
   * `upload_headers` of createRestore/createClip), with progress and retries.
   */
  upload(target: UploadTarget, source: UploadSource, options?: UploadOptions): Promise<void>;
  /**
   * Sends a restore's file in parts — for a createRestore answer with `upload` (a plan) instead
   * of upload_url: parts in parallel (4 by default), each retried with back-off, resuming from
   * what the server says arrived (another run, another machine). Then startRestore (or the
   * checkout) joins them.
   */
  uploadRestoreParts(
    jobId: string,
    source: UploadSource,
    options?: PartsUploadOptions,
  ): Promise<PartsUploadResult>;
}

const RETRYABLE_STATUS = (status: number) => status >= 500 || status === 429;

/** Builds a client for one server and key. */
export function createKinora(options: KinoraOptions): Kinora {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);

  async function call<K extends OperationId>(id: K, ...args: MethodArgs<K>): Promise<Output<K>> {
    const [input, opts = {}] = args as [Record<string, unknown> | undefined, CallOptions?];
    const route = OPERATIONS[id];
    if (!route) throw new TypeError(`unknown operation ${String(id)}`);
    const fields: Record<string, unknown> = { ...(input ?? {}) };

    let path = route.path;
    for (const name of route.pathParams) {
      const value = fields[name];
      if (value === undefined || value === null || value === "") {
        throw new TypeError(`${id}: ${name} is required`);
      }
      path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
      delete fields[name];
    }
    const query = new URLSearchParams();
    for (const name of route.query) {
      const value = fields[name];
      if (value !== undefined && value !== null) query.set(name, String(value));
      delete fields[name];
    }
    const url = `${base}${path}${query.size > 0 ? `?${query}` : ""}`;

    const headers: Record<string, string> = { accept: "application/json", ...options.headers };
    if (options.userAgent) headers["user-agent"] = options.userAgent;
    // A key never travels to an operation that takes none (prices, a restore read by its id).
    const key = route.auth === "none" ? undefined : (opts.apiKey ?? options.apiKey);
    if (key) headers.authorization = `Bearer ${key}`;
    const idempotencyKey =
      opts.idempotencyKey ?? (route.spends ? globalThis.crypto.randomUUID() : undefined);
    if (idempotencyKey && route.idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    Object.assign(headers, opts.headers);
    let body: string | undefined;
    if (route.body) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(fields);
    }

    // The server keeps (and replays) Idempotency-Keys only for authenticated calls.
    const safeToRepeat =
      route.method === "GET" || (Boolean(headers["idempotency-key"]) && Boolean(key));
    const maxRetries = opts.maxRetries ?? options.maxRetries ?? 3;
    const baseMs = opts.retryBaseMs ?? options.retryBaseMs ?? 500;
    const maxWait = opts.maxRetryAfterMs ?? options.maxRetryAfterMs ?? 60_000;
    const signal = opts.signal;

    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      let res: Response;
      try {
        res = await doFetch(url, { method: route.method, headers, body, signal });
      } catch (err) {
        if (isAbort(err, signal)) throw signal?.reason ?? err;
        if (!safeToRepeat || attempt > maxRetries) throw new KinoraNetworkError(id, err);
        await sleep(backoffMs(attempt, baseMs), signal);
        continue;
      }
      if (res.ok) {
        const text = await res.text();
        return (text ? JSON.parse(text) : undefined) as Output<K>;
      }
      const error = await errorFromResponse(id, res);
      const retryable =
        attempt <= maxRetries &&
        (res.status === 429 ||
          (safeToRepeat && (RETRYABLE_STATUS(res.status) || error.is("idempotency_in_flight"))));
      if (!retryable) throw error;
      const asked = retryAfterMs(res.headers.get("retry-after"));
      if (asked !== undefined && asked > maxWait) throw error;
      await sleep(asked ?? backoffMs(attempt, baseMs), signal);
    }
  }

  const client = {
    call,
    upload: (target: UploadTarget, source: UploadSource, uploadOptions: UploadOptions = {}) =>
      upload(target, source, {
        fetch: doFetch,
        maxRetries: options.maxRetries,
        retryBaseMs: options.retryBaseMs,
        ...uploadOptions,
      }),
    uploadRestoreParts: (
      jobId: string,
      source: UploadSource,
      partsOptions: PartsUploadOptions = {},
    ) =>
      uploadParts(
        {
          state: (signal) =>
            call("getRestoreUpload", { id: jobId }, { signal }).then((r) => r.upload),
          links: (parts, signal) =>
            call("getRestorePartLinks", { id: jobId, parts }, { signal }).then((r) => r.parts),
          report: async (part, signal) => {
            await call("reportRestorePart", { id: jobId, ...part }, { signal });
          },
        },
        source,
        {
          // A fetch of the caller's own goes to the parts too; without one, Node pipes a path.
          ...(options.fetch ? { fetch: doFetch } : {}),
          maxRetries: options.maxRetries,
          retryBaseMs: options.retryBaseMs,
          ...partsOptions,
        },
      ),
    ...kindWaits(call),
  } as Kinora;
  for (const id of Object.keys(OPERATIONS) as OperationId[]) {
    (client as unknown as Record<string, unknown>)[id] = (...args: unknown[]) =>
      (call as (id: OperationId, ...a: unknown[]) => Promise<unknown>)(id, ...args);
  }
  return client;
}
