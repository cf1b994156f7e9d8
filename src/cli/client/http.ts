/**
 * The client's HTTP side: JSON requests to a kinora server's public API, nothing else. Every
 * error response becomes an ApiFailure carrying the server's `detail`; no answer at all becomes
 * a NetworkFailure naming the server.
 */
import type { ErrorAnswer } from "./exit-codes.js";
import { ApiFailure, Interrupted, isAbort, NetworkFailure, UsageError } from "./failures.js";

/** How the client names itself to the server and to storage links. */
export const USER_AGENT = "kinora-cli/1.0";
/** A request with no answer after this long is a network failure (long polls add their wait). */
const REQUEST_TIMEOUT_MS = 30_000;

/** How one request is sent: its query or JSON body, the key, and how long it may take. */
export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  /** Send the key (default true when one is set); keyless reads skip it. */
  auth?: boolean;
  /** Extra time this request may take on the server (long polls). */
  extraTimeoutMs?: number;
  signal?: AbortSignal;
}

/** One server and one credential (a wallet, agent or admin key), and the Ctrl-C signal. */
export class ApiClient {
  constructor(
    readonly server: string,
    readonly key: string | undefined,
    /** Ctrl-C: aborts requests in flight. */
    readonly signal?: AbortSignal,
  ) {}

  /** The key, or a usage error saying how to sign in. */
  requireKey(): string {
    if (!this.key) {
      throw new UsageError(
        "This needs a key: run `kinora login` (or set KINORA_KEY to a pmk_ or pak_ key).",
      );
    }
    return this.key;
  }

  /** The same server and key with another signal (e.g. to cancel a job after Ctrl-C). */
  withSignal(signal: AbortSignal | undefined): ApiClient {
    return new ApiClient(this.server, this.key, signal);
  }

  /**
   * One JSON request. Commands call operations through callOperation (./operations.ts), which
   * fills in the method, path and body from the contract; this is its transport.
   */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const url = new URL(path, `${this.server.replace(/\/+$/, "")}/`);
    for (const [name, value] of Object.entries(opts.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      "user-agent": USER_AGENT,
      accept: "application/json",
    };
    if (opts.auth ?? true) {
      if (this.key) headers.authorization = `Bearer ${this.key}`;
    }
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS + (opts.extraTimeoutMs ?? 0));
    const signals = [timeout, opts.signal ?? this.signal].filter((s) => s !== undefined);
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: AbortSignal.any(signals),
      });
    } catch (err) {
      throw this.noAnswer(err, timeout);
    }
    const text = await res.text().catch(() => "");
    const data = parseJson(text);
    if (!res.ok) throw new ApiFailure(res.status, errorBody(data, res));
    return data as T;
  }

  private noAnswer(err: unknown, timeout: AbortSignal): Error {
    if (timeout.aborted) return new NetworkFailure(`${this.server} did not answer in time.`);
    if (isAbort(err)) return new Interrupted();
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (err as Error).message;
    return new NetworkFailure(
      `Could not reach ${this.server} (${why}). Is the address right? Set it with --server URL or KINORA_SERVER.`,
    );
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The error body, or one made up from the status when a proxy answered with HTML. */
function errorBody(data: unknown, res: Response): ErrorAnswer {
  if (data && typeof data === "object" && typeof (data as ErrorAnswer).detail === "string") {
    return data as ErrorAnswer;
  }
  return { detail: `${res.url} answered HTTP ${res.status} ${res.statusText}`.trim() };
}
