/**
 * What a failed call throws: a `KinoraError` when the server (or the storage behind an upload
 * link) answered with an error, carrying the body's machine-readable `code`, the human `detail`
 * and the `request_id` to quote to the operator; a `KinoraNetworkError` when no answer arrived
 * after the retries. An aborted call rejects with the signal's own reason (an `AbortError`).
 */
import { ERROR_CODES, type ErrorCode } from "./generated.js";

/** The JSON error body every kinora error answer carries. */
export interface ErrorBody {
  detail: string;
  code: ErrorCode;
  request_id: string;
  [field: string]: unknown;
}

/** The server refused a call; `code` is one of its closed table (see ERROR_CODES). */
export class KinoraError extends Error {
  override name = "KinoraError";
  /** HTTP status of the answer. */
  readonly status: number;
  /** Machine-readable reason, e.g. `needs_topup`. */
  readonly code: ErrorCode;
  /** What went wrong and what to do, in words. */
  readonly detail: string;
  /** The server's id for the request ("" when the answer had none). */
  readonly request_id: string;
  /** The whole error body (e.g. `price_cents`, `question`, `needs_topup`). */
  readonly body: ErrorBody;
  /** The operation that failed (or "upload"). */
  readonly operation: string;

  constructor(operation: string, status: number, body: ErrorBody) {
    super(`${operation}: ${body.code}: ${body.detail}`);
    this.operation = operation;
    this.status = status;
    this.code = body.code;
    this.detail = body.detail;
    this.request_id = body.request_id;
    this.body = body;
  }

  /** Whether this is the given code; narrows `code` for a switch-free check. */
  is<C extends ErrorCode>(code: C): this is KinoraError & { code: C } {
    return this.code === code;
  }
}

/** No answer arrived (connection refused or reset, DNS, TLS) even after the retries. */
export class KinoraNetworkError extends Error {
  override name = "KinoraNetworkError";
  constructor(
    readonly operation: string,
    cause: unknown,
  ) {
    super(`${operation}: no answer from the server (${describeFailure(cause)})`, { cause });
  }
}

/** Why a request got no answer, as a person reads it: "ECONNRESET", "fetch failed". */
export function describeFailure(err: unknown): string {
  // cast: fetch's TypeError carries the socket error as `cause` (undici), untyped
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  // cast: any thrown value; only its message is read, and an absent one falls through to String(err)
  return cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
}

const KNOWN = new Set<string>(ERROR_CODES);

/**
 * The error for a non-2xx answer: the kinora error body when there is one; otherwise (a proxy's
 * HTML page, the storage's XML) a code chosen by status, with the start of the text as detail.
 */
export async function errorFromResponse(operation: string, res: Response): Promise<KinoraError> {
  const text = await res.text().catch(() => "");
  const requestId = res.headers.get("x-request-id") ?? "";
  try {
    // cast: a JSON error body read leniently: every field is checked with typeof before use
    const body = JSON.parse(text) as Partial<ErrorBody>;
    if (body && typeof body.code === "string" && KNOWN.has(body.code)) {
      return new KinoraError(operation, res.status, {
        ...body,
        code: body.code,
        detail: String(body.detail ?? body.code),
        request_id: String(body.request_id ?? requestId),
      });
    }
  } catch {
    // not JSON: described below
  }
  const code: ErrorCode =
    res.status === 429
      ? "rate_limited"
      : res.status === 404
        ? "not_found"
        : res.status === 413
          ? "too_large"
          : res.status >= 500
            ? "upstream_failed"
            : "invalid_request";
  // S3 (behind an upload or download link) says why in XML: <Error><Message>…</Message>.
  const xml = /<Message>([^<]{1,500})<\/Message>/.exec(text)?.[1];
  const said = xml ?? text.replace(/\s+/g, " ").slice(0, 300);
  const detail = `HTTP ${res.status}${said ? `: ${said}` : ""}`;
  return new KinoraError(operation, res.status, { code, detail, request_id: requestId });
}

/** Whether `err` is (or wraps) an abort. */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  // cast: any thrown value; only its name is compared, and an absent name is fine
  return Boolean(signal?.aborted) || (err as Error)?.name === "AbortError";
}
