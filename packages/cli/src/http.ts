/**
 * The client's HTTP side, on `@kinora/client`: every operation is the SDK's typed method (its
 * path, fields, Idempotency-Key and safe retries), and this module only turns what the SDK
 * throws into the command line's failures — an error answer becomes an ApiFailure carrying the
 * server's `detail`, no answer at all a NetworkFailure naming the server, Ctrl-C Interrupted.
 */
import {
  type CallOptions,
  createKinora,
  type Input,
  type Kinora,
  KinoraError,
  KinoraNetworkError,
  type OperationId,
  type Output,
} from "@kinora/client";
import { ApiFailure, Interrupted, isAbort, NetworkFailure, UsageError } from "./failures.js";

/** How the client names itself to the server and to storage links. */
export const USER_AGENT = "kinora-cli/1.0";
/** A request with no answer after this long is a network failure (long polls add their wait). */
const REQUEST_TIMEOUT_MS = 30_000;

/** Per-call options beyond the SDK's: time a held read may take on the server. */
export interface CallExtras {
  /** Extra time this request may take on the server (long polls). */
  extraTimeoutMs?: number;
  /** A signal for this call only (default: the client's Ctrl-C signal). */
  signal?: AbortSignal;
}

/** One server and one credential (a wallet, agent or admin key), and the Ctrl-C signal. */
export class ApiClient {
  /** The SDK client every call goes through. */
  readonly kinora: Kinora;

  constructor(
    readonly server: string,
    readonly key: string | undefined,
    /** Ctrl-C: aborts requests in flight. */
    readonly signal?: AbortSignal,
  ) {
    this.kinora = createKinora({
      baseUrl: server,
      ...(key ? { apiKey: key } : {}),
      userAgent: USER_AGENT,
    });
  }

  /** The key, or a usage error saying how to sign in. */
  requireKey(): string {
    if (!this.key) {
      throw new UsageError(
        "This needs a key: run `kinora login` (or set KINORA_KEY to a pmk_ or pak_ key).",
      );
    }
    return this.key;
  }

  /** The same server with no key: for what must not carry one (a restore paid by card). */
  withoutKey(): ApiClient {
    return new ApiClient(this.server, undefined, this.signal);
  }

  /** The same server and key with another signal (e.g. to cancel a job after Ctrl-C). */
  withSignal(signal: AbortSignal | undefined): ApiClient {
    return new ApiClient(this.server, this.key, signal);
  }

  /**
   * Calls operation `id` (the OpenAPI operationId) with its input under the REST field names,
   * and answers its typed output; every failure is a CliFailure.
   */
  async call<K extends OperationId>(
    id: K,
    input: Input<K>,
    extras: CallExtras & Pick<CallOptions, "idempotencyKey"> = {},
  ): Promise<Output<K>> {
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS + (extras.extraTimeoutMs ?? 0));
    const stop = extras.signal ?? this.signal;
    const signal = AbortSignal.any(stop ? [timeout, stop] : [timeout]);
    const options: CallOptions = { signal };
    if (extras.idempotencyKey) options.idempotencyKey = extras.idempotencyKey;
    try {
      // cast: the client's call is generic per operation id; this wrapper passes K's own input and output through
      const call = this.kinora.call as (
        id: K,
        input: Input<K>,
        options: CallOptions,
      ) => Promise<Output<K>>;
      return await call(id, input, options);
    } catch (err) {
      throw this.failureOf(err, timeout);
    }
  }

  private failureOf(err: unknown, timeout: AbortSignal): Error {
    if (err instanceof KinoraError) return new ApiFailure(err.status, err.body);
    if (timeout.aborted) return new NetworkFailure(`${this.server} did not answer in time.`);
    if (isAbort(err)) return new Interrupted();
    const cause = err instanceof KinoraNetworkError ? err.cause : err;
    // cast: fetch's TypeError carries the socket error as `cause` (undici), untyped
    const inner = (cause as { cause?: { code?: string; message?: string } })?.cause;
    // cast: any thrown value; only its message is read, and an absent one falls through to String(cause)
    const why = inner?.code ?? inner?.message ?? (cause as Error)?.message ?? String(cause);
    return new NetworkFailure(
      `Could not reach ${this.server} (${why}). Is the address right? Set it with --server URL or KINORA_SERVER.`,
    );
  }
}
