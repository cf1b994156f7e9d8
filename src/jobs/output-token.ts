/**
 * Output upload tokens. A result's size is known only when the engine finishes, and storage
 * upload links are bound to an exact size, so a WorkItem's `outputUrl` is kinora's
 * POST /worker/output-ticket and its headers carry a signed token naming the storage key.
 * The worker POSTs `{size_bytes, content_type}` there and gets a presigned PUT for exactly
 * that size. The token (src/signing.ts: purpose-bound, expiring, key id) is the only credential, so
 * in-process and remote workers use the same path without storage or database credentials.
 */
import type { Signer } from "../signing.js";

/** The header a worker sends its output ticket in. */
export const OUTPUT_TOKEN_HEADER = "x-kinora-output-token";

interface OutputClaims {
  key: string;
  jobId: string;
  maxBytes: number;
  expSec: number;
}

const PURPOSE = "output-ticket";

/** Signs the ticket that lets a worker store one job's output. */
export function signOutputToken(signer: Signer, claims: OutputClaims): string {
  const { expSec, ...rest } = claims;
  return signer.sign(PURPOSE, rest, expSec * 1000);
}

/** The ticket's claims if it is valid, unexpired and for this job. */
export function verifyOutputToken(
  signer: Signer,
  token: string,
  nowMs: number,
): OutputClaims | null {
  const c = signer.verify<{ key?: unknown; jobId?: unknown; maxBytes?: unknown; exp: number }>(
    PURPOSE,
    token,
    nowMs,
  );
  if (!c || typeof c.key !== "string" || typeof c.jobId !== "string") return null;
  if (typeof c.maxBytes !== "number") return null;
  return { key: c.key, jobId: c.jobId, maxBytes: c.maxBytes, expSec: c.exp };
}
