/**
 * `PUT /files/p/<token>`: one part of an upload in parts on the local store, answered as S3
 * answers UploadPart where it can (200 with the part's ETag; a bad checksum refused), with
 * kinora's error body. The token binds the upload, the part number, its offset and exact size,
 * and its checksum; the request must send that checksum in the header S3 uses for it
 * (`x-amz-checksum-sha256`, or `Content-MD5`), and the bytes must match it, or nothing is kept.
 *
 * Statuses: a token problem 403 (link_invalid); a header that does not match the link, a short
 * or damaged body 400 (upload_mismatch); a body longer than the part 413 (too_large); the job no
 * longer taking its file 409 (wrong_state); the upload being completed, or a newer PUT of the same
 * part arriving before this one ended (the newer one is taken: a retry after a broken connection
 * must not wait for the server to notice the break) 409 (conflict); the upload completed or
 * aborted 404 (not_found).
 */
import type { Context } from "hono";
import { checksumHeader } from "../domain/uploads.js";
import type { Signer } from "../signing.js";
import type { UploadGuard } from "./blob-store.js";
import type { LocalDisk } from "./local-disk.js";
import { contentLength, fail, isClientAbort, requestChunks } from "./local-http.js";
import type { LocalMultipart } from "./local-multipart.js";
import type { PartOutcome } from "./local-part-writer.js";
import { type PartClaims, verifyToken } from "./local-token.js";

/**
 * What the local store's routes (./local-routes.ts) and this one need: the disk, the uploads
 * in parts, the signer, the clock, the guard.
 */
export interface LocalRoutesDeps {
  disk: LocalDisk;
  multipart: LocalMultipart;
  signer: Signer;
  now: () => number;
  guard?: UploadGuard;
}

const NO_UPLOAD =
  "no upload in parts is open at this link: it was completed or aborted; ask for the upload's state";

/** Receives one part; see the module comment for the answers. */
export async function handlePart(c: Context, deps: LocalRoutesDeps): Promise<Response> {
  const check = verifyToken(c.req.param("token") ?? "", "part", deps.signer, deps.now());
  if (!check.ok) return fail(c, "link_invalid", check.detail);
  const claims = check.claims;
  const refusal = refuseHeaders(c, claims);
  if (refusal) return refusal;
  const allowed = deps.guard ? await deps.guard(claims.key) : { ok: true as const, once: false };
  if (!allowed.ok) return fail(c, "wrong_state", allowed.detail, { Connection: "close" });
  if (allowed.once && (await deps.disk.head(claims.key))) {
    return fail(c, "already_uploaded", "the file already arrived whole; no part is taken now", {
      Connection: "close",
    });
  }
  const stillAllowed = async () => !deps.guard || (await deps.guard(claims.key)).ok;
  const outcome = await deps.multipart
    .receivePart(claims, requestChunks(c), stillAllowed)
    .catch((err: unknown) => {
      if (isClientAbort(err)) return null;
      throw err;
    });
  if (outcome === null) {
    return fail(c, "upload_mismatch", `part ${claims.partNumber} was interrupted; send it again`);
  }
  if (outcome.ok) {
    const header = checksumHeader(claims.algorithm);
    return c.body(null, 200, { ETag: outcome.etag, [header]: claims.checksum });
  }
  return refused(c, claims, outcome);
}

function refused(
  c: Context,
  claims: PartClaims,
  outcome: Exclude<PartOutcome, { ok: true }>,
): Response {
  const part = `part ${claims.partNumber}`;
  const close = { Connection: "close" };
  switch (outcome.reason) {
    case "no_upload":
      return fail(c, "not_found", NO_UPLOAD, close);
    case "closing":
      return fail(
        c,
        "conflict",
        "the upload is being completed or aborted; no part is taken now",
        close,
      );
    case "superseded":
      return fail(
        c,
        "conflict",
        `a newer PUT of ${part} took over from this one; nothing of this one was kept`,
        close,
      );
    case "refused":
      return fail(
        c,
        "wrong_state",
        "the job stopped taking its file while the part arrived; nothing was kept",
      );
    case "too_long":
      return fail(
        c,
        "too_large",
        `${part} is exactly ${claims.sizeBytes} bytes; the body was longer`,
        close,
      );
    case "too_short":
      return fail(
        c,
        "upload_mismatch",
        `${part} is ${claims.sizeBytes} bytes; ${outcome.bytes} arrived`,
      );
    case "bad_checksum":
      return fail(
        c,
        "upload_mismatch",
        `${part} does not match its ${checksumHeader(claims.algorithm)}: it was damaged on the way or is not the part that was hashed; nothing was kept, send it again`,
      );
    case "exists":
      return fail(c, "already_uploaded", "the file already arrived whole", close);
  }
}

/** The checksum header and Content-Length against the link, before a body byte is read. */
function refuseHeaders(c: Context, claims: PartClaims): Response | null {
  const header = checksumHeader(claims.algorithm);
  const sent = c.req.header(header);
  if (sent !== claims.checksum) {
    const got = sent === undefined ? "none" : JSON.stringify(sent.slice(0, 60));
    return fail(
      c,
      "upload_mismatch",
      `${header} must be ${JSON.stringify(claims.checksum)} as given in the part's headers, got ${got}`,
    );
  }
  const length = contentLength(c);
  if (length === undefined || length === claims.sizeBytes) return null;
  if (Number.isNaN(length)) {
    return fail(c, "invalid_request", "Content-Length must be a whole number of bytes");
  }
  const detail = `part ${claims.partNumber} is exactly ${claims.sizeBytes} bytes; Content-Length is ${length}`;
  return length > claims.sizeBytes
    ? fail(c, "too_large", detail, { Connection: "close" })
    : fail(c, "upload_mismatch", detail);
}
