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
import { OPERATIONS, type OperationId, type Operations } from "./generated.js";
import { type KindWaits, kindWaits } from "./kinds/generated.js";
import { type CallOptions, type KinoraOptions, prepareRequest, sendRequest } from "./request.js";
import { type UploadOptions, type UploadSource, type UploadTarget, upload } from "./upload.js";
import { type PartsUploadOptions, type PartsUploadResult, uploadParts } from "./upload-parts.js";

export type { CallOptions, KinoraOptions } from "./request.js";

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

/** Builds a client for one server and key. */
export function createKinora(options: KinoraOptions): Kinora {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);

  async function call<K extends OperationId>(id: K, ...args: MethodArgs<K>): Promise<Output<K>> {
    // cast: MethodArgs<K> is a per-operation tuple; its first two places are always the input and the options
    const [input, opts = {}] = args as [Record<string, unknown> | undefined, CallOptions?];
    const route = OPERATIONS[id];
    if (!route) throw new TypeError(`unknown operation ${String(id)}`);
    const request = prepareRequest(id, base, route, input, options, opts);
    // The answer is the operation's output: the server's contract, which generated.ts types.
    // cast: the server's answer to operation K is Output<K> by the contract generated.ts is made from
    return (await sendRequest(id, request, doFetch, options, opts)) as Output<K>;
  }

  // cast: the per-operation methods are added by the loop below, before the client is returned
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
            // The counts only: the whole list of parts on every report grows with the upload.
            await call("reportRestorePart", { id: jobId, ...part, brief: true }, { signal });
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
  // cast: Object.keys of the generated OPERATIONS table is exactly its ids (TS types keys as string)
  for (const id of Object.keys(OPERATIONS) as OperationId[]) {
    // cast: adds the methods Kinora declares per operation id; `call` checks each id's input at run time
    (client as unknown as Record<string, unknown>)[id] = (...args: unknown[]) =>
      // cast: call is generic in K; each method passes its own id and arguments, typed per method on Kinora
      (call as (id: OperationId, ...a: unknown[]) => Promise<unknown>)(id, ...args);
  }
  return client;
}
