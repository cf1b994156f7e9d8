/**
 * One operation call over HTTP, for ./client.ts: the request its route and input make (path and
 * query fields, the key, the Idempotency-Key, the JSON body), and sending it with the retries
 * that cannot act twice (see client.ts for which calls are retried, and on what).
 */
import { errorFromResponse, isAbort, KinoraNetworkError } from "./errors.js";
import type { OperationRoute } from "./generated.js";
import { backoffMs, type RetryOptions, retryAfterMs, sleep } from "./retry.js";

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

/** A call ready to send, and whether sending it again cannot act twice. */
export interface PreparedRequest {
  url: string;
  method: OperationRoute["method"];
  headers: Record<string, string>;
  body: string | undefined;
  safeToRepeat: boolean;
}

/** The URL of a call: path fields filled in, query fields added; both taken out of `fields`. */
function urlOf(
  id: string,
  base: string,
  route: OperationRoute,
  fields: Record<string, unknown>,
): string {
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
  return `${base}${path}${query.size > 0 ? `?${query}` : ""}`;
}

/** The request an operation's route and input make, with the client's and the call's options. */
export function prepareRequest(
  id: string,
  base: string,
  route: OperationRoute,
  input: Record<string, unknown> | undefined,
  options: KinoraOptions,
  opts: CallOptions,
): PreparedRequest {
  const fields: Record<string, unknown> = { ...(input ?? {}) };
  const url = urlOf(id, base, route, fields);
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
  return { url, method: route.method, headers, body, safeToRepeat };
}

const RETRYABLE_STATUS = (status: number) => status >= 500 || status === 429;

/**
 * Sends the request, retrying what may be retried, and answers its parsed JSON body (undefined
 * when empty); throws the server's error as a KinoraError, or a KinoraNetworkError.
 */
export async function sendRequest(
  id: string,
  request: PreparedRequest,
  doFetch: typeof fetch,
  options: KinoraOptions,
  opts: CallOptions,
): Promise<unknown> {
  const { url, method, headers, body, safeToRepeat } = request;
  const maxRetries = opts.maxRetries ?? options.maxRetries ?? 3;
  const baseMs = opts.retryBaseMs ?? options.retryBaseMs ?? 500;
  const maxWait = opts.maxRetryAfterMs ?? options.maxRetryAfterMs ?? 60_000;
  const signal = opts.signal;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    let res: Response;
    try {
      res = await doFetch(url, { method, headers, body, signal });
    } catch (err) {
      if (isAbort(err, signal)) throw signal?.reason ?? err;
      if (!safeToRepeat || attempt > maxRetries) throw new KinoraNetworkError(id, err);
      await sleep(backoffMs(attempt, baseMs), signal);
      continue;
    }
    if (res.ok) {
      const text = await res.text();
      return text ? JSON.parse(text) : undefined;
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
