/**
 * The HTTP side of the local store, mounted by the server at /files:
 * `PUT /u/<token>` receives an upload, `PUT /p/<token>` one part of an upload in parts
 * (local-part-route.ts), `GET|HEAD /d/<token>` serves a download.
 *
 * Statuses: every token problem (malformed, altered, expired, wrong purpose) is
 * 403, as S3 answers for its presigned URLs, so a client handles both stores
 * alike. A request that does not match what its valid token binds is 400
 * (wrong Content-Type, too few bytes) or 413 (too many bytes). An upload the
 * guard refuses (the link was used, or its job no longer waits for a file) is
 * 409, also when the job stopped waiting while the bytes streamed (they are then deleted). Nothing at a download link is 404. Every error body is `{ "detail", "code" }`, the
 * code from the API's table (link_invalid, upload_mismatch, already_uploaded, wrong_state …).
 */
import { Readable } from "node:stream";
import { type Context, Hono } from "hono";
import { attachmentDisposition } from "./blob-store.js";
import { decideRange, ifRangeMatches } from "./http-range.js";
import type { OpenedObject } from "./local-disk.js";
import { fail, isClientAbort, requestChunks } from "./local-http.js";
import { handlePart, type LocalRoutesDeps } from "./local-part-route.js";
import { type DownloadClaims, type UploadClaims, verifyToken } from "./local-token.js";

const USED_LINK =
  "this upload link was already used: the file arrived, and a link accepts one file";

export function buildLocalRoutes(deps: LocalRoutesDeps): Hono {
  const app = new Hono();
  app.put("/u/:token", (c) => handleUpload(c, deps));
  app.put("/p/:token", (c) => handlePart(c, deps));
  // Hono routes HEAD to GET handlers; the handler checks the method to skip the body.
  app.get("/d/:token", (c) => handleDownload(c, deps));
  app.all("/u/:token", (c) =>
    fail(c, "method_not_allowed", "upload links accept only PUT", { Allow: "PUT" }),
  );
  app.all("/p/:token", (c) =>
    fail(c, "method_not_allowed", "part links accept only PUT", { Allow: "PUT" }),
  );
  app.all("/d/:token", (c) =>
    fail(c, "method_not_allowed", "download links accept only GET and HEAD", {
      Allow: "GET, HEAD",
    }),
  );
  return app;
}

async function handleUpload(c: Context, deps: LocalRoutesDeps): Promise<Response> {
  const check = verifyToken(c.req.param("token") ?? "", "upload", deps.signer, deps.now());
  if (!check.ok) return fail(c, "link_invalid", check.detail);
  const claims = check.claims;
  const refusal = refuseHeaders(c, claims);
  if (refusal) return refusal;
  const allowed = deps.guard ? await deps.guard(claims.key) : { ok: true as const, once: false };
  if (!allowed.ok) return fail(c, "wrong_state", allowed.detail, { Connection: "close" });
  if (allowed.once && (await deps.disk.head(claims.key))) {
    return fail(c, "already_uploaded", USED_LINK, { Connection: "close" });
  }
  const outcome = await deps.disk
    .write(claims.key, requestChunks(c), claims.sizeBytes, claims.contentType, {
      upTo: claims.upTo ?? false,
      noReplace: allowed.once,
    })
    .catch((err: unknown) => {
      if (isClientAbort(err)) return null;
      throw err;
    });
  if (outcome === null) {
    return fail(c, "upload_mismatch", "the upload was interrupted; nothing was stored");
  }
  if (!outcome.ok && outcome.reason === "exists") return fail(c, "already_uploaded", USED_LINK);
  if (!outcome.ok && outcome.reason === "too_long") {
    const detail = `this link accepts ${claims.upTo ? "at most" : "exactly"} ${claims.sizeBytes} bytes; the body was longer`;
    return fail(c, "too_large", detail, { Connection: "close" });
  }
  if (!outcome.ok) {
    return fail(c, "upload_mismatch", `expected ${claims.sizeBytes} bytes, got ${outcome.bytes}`);
  }
  // The job may have left the state that accepts this file while the bytes streamed (a cancel
  // refunds at once): asked again now, a refusal deletes the file, so none outlives its job.
  // A cancel after this check deletes the file itself.
  const still = deps.guard ? await deps.guard(claims.key) : allowed;
  if (!still.ok) {
    await deps.disk.remove(claims.key);
    return fail(c, "wrong_state", still.detail);
  }
  return c.body(null, 200, outcome.etag ? { ETag: outcome.etag } : {});
}

/** Checks the headers against the token before a single body byte is read. */
function refuseHeaders(c: Context, claims: UploadClaims): Response | null {
  const contentType = c.req.header("content-type");
  if (contentType !== claims.contentType) {
    const got = contentType === undefined ? "none" : JSON.stringify(contentType);
    return fail(
      c,
      "upload_mismatch",
      `Content-Type must be ${JSON.stringify(claims.contentType)} as given in upload_headers, got ${got}`,
    );
  }
  const lengthHeader = c.req.header("content-length");
  if (lengthHeader === undefined) return null;
  const length = /^\d{1,16}$/.test(lengthHeader) ? Number(lengthHeader) : Number.NaN;
  if (Number.isNaN(length)) {
    return fail(c, "invalid_request", "Content-Length must be a whole number of bytes");
  }
  if (length === claims.sizeBytes || (claims.upTo && length <= claims.sizeBytes)) return null;
  if (claims.upTo) {
    const detail = `this link accepts at most ${claims.sizeBytes} bytes; Content-Length is ${length}`;
    return fail(c, "too_large", detail, { Connection: "close" });
  }
  const detail = `this link accepts exactly ${claims.sizeBytes} bytes; Content-Length is ${length}`;
  return length > claims.sizeBytes
    ? fail(c, "too_large", detail, { Connection: "close" })
    : fail(c, "upload_mismatch", detail);
}

async function handleDownload(c: Context, deps: LocalRoutesDeps): Promise<Response> {
  const check = verifyToken(c.req.param("token") ?? "", "download", deps.signer, deps.now());
  if (!check.ok) return fail(c, "link_invalid", check.detail);
  const opened = await deps.disk.openForRead(check.claims.key);
  if (!opened) {
    return fail(
      c,
      "not_found",
      "nothing is stored at this link; it may have been deleted after its retention period",
    );
  }
  let streaming = false;
  try {
    const reply = respondWithFile(c, opened, check.claims);
    // Once a read stream owns the handle, it closes it when done or cancelled.
    streaming = reply.streaming;
    return reply.response;
  } finally {
    if (!streaming) await opened.fh.close();
  }
}

function respondWithFile(
  c: Context,
  file: OpenedObject,
  claims: DownloadClaims,
): { response: Response; streaming: boolean } {
  const headers = new Headers({
    "Content-Type": claims.contentType ?? file.contentType ?? "application/octet-stream",
    "Content-Disposition": attachmentDisposition(
      claims.filename,
      claims.inline ? "inline" : "attachment",
    ),
    ETag: file.etag,
    "Last-Modified": file.lastModified.toUTCString(),
    "Accept-Ranges": "bytes",
    // The URL is a capability: no shared cache may keep a copy.
    "Cache-Control": "private, no-store",
    // Uploaded bytes are never run as a page on our origin.
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
  });
  const matches = ifRangeMatches(c.req.header("if-range"), file.etag, file.lastModified);
  const range = decideRange(c.req.header("range"), file.sizeBytes, matches);
  if (range.kind === "unsatisfiable") {
    const detail = `the requested range is outside the file's ${file.sizeBytes} bytes`;
    const contentRange = { "Content-Range": `bytes */${file.sizeBytes}` };
    const response = fail(c, "range_not_satisfiable", detail, contentRange);
    return { response, streaming: false };
  }
  const start = range.kind === "partial" ? range.start : 0;
  const end = range.kind === "partial" ? range.end : file.sizeBytes - 1;
  const status = range.kind === "partial" ? 206 : 200;
  headers.set("Content-Length", String(end - start + 1));
  if (range.kind === "partial")
    headers.set("Content-Range", `bytes ${start}-${end}/${file.sizeBytes}`);
  if (c.req.method === "HEAD" || end < start) {
    return { response: new Response(null, { status, headers }), streaming: false };
  }
  const stream = file.fh.createReadStream({ start, end, autoClose: true });
  // cast: Node's web ReadableStream and the DOM lib's are one class at run time, typed apart
  const body = Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
  return { response: new Response(body, { status, headers }), streaming: true };
}
