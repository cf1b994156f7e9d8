/**
 * SSRF-safe fetching of caller-supplied URLs: images (`image_url`) and OAuth client metadata
 * here, videos (`video_url`) streamed to a file by safe-stream.ts over the same hops.
 *
 * Decisions (documented here and in the README):
 * - Schemes: http and https only; no user:password in the URL; URLs up to 2048 characters.
 * - Ports: the defaults (80/443) and any unprivileged port (1024–65535), which CDNs and
 *   image hosts use (8080, 8443, …). Other ports below 1024 (22, 25, 110, …) are refused so
 *   the fetcher cannot be aimed at SSH/SMTP-style services on public hosts; the address
 *   checks, not the port, are what keep it away from internal networks.
 * - DNS is resolved first and the fetch is refused if ANY resolved address is forbidden
 *   (see ip-ranges.ts). The socket is then pinned to the checked addresses through a custom
 *   `lookup`, so a DNS answer that changes between check and connect (rebinding) is never
 *   used. The Host header and TLS SNI/certificate check still use the URL's host name.
 * - Redirects are followed by hand (3 by default), every hop re-checked like the first.
 * - Bytes are capped while streaming, the whole fetch (all hops) has one deadline, and the
 *   image type is decided by magic bytes only (videos: by Content-Type, safe-stream.ts). The server's Content-Type is ignored because
 *   CDNs often send application/octet-stream; what matters is what the bytes are.
 */
import http, { type ClientRequest, type IncomingMessage } from "node:http";
import https from "node:https";
import { badTypeError, ImageFetchError, tooLargeError } from "./fetch-errors.js";
import {
  IMAGE_CONTENT_TYPES,
  type ImageContentType,
  SNIFF_BYTES,
  sniffImageType,
} from "./image-sniff.js";
import {
  checkUrl,
  pinnedLookup,
  type ResolvedAddress,
  resolveTarget,
  type Target,
  type TargetGuard,
} from "./public-target.js";

export { ImageFetchError, type ImageFetchErrorCode, UnsafeUrlError } from "./fetch-errors.js";
export { isForbiddenAddress } from "./ip-ranges.js";
export { checkPublicUrl, type ResolvedAddress, type Target } from "./public-target.js";

/** Bounds of a fetch of a caller's URL: size, time, redirects, content types. */
export interface SafeFetchOptions extends TargetGuard {
  maxBytes: number;
  /** One deadline for the whole fetch, redirects included. */
  timeoutMs: number;
  maxRedirects?: number;
  /** Sniffed types to accept; defaults to JPEG, PNG and WebP. */
  allowedContentTypes?: string[];
  /** Test seam: the CA to trust instead of the system's (a local https server). */
  caForTests?: Buffer;
  /** The request field named in error messages; defaults to "image_url". */
  field?: string;
  /** What the URL should serve, as messages name it; defaults to "image". */
  noun?: string;
  /** Caller cancellation (e.g. the HTTP request went away); rethrown as its reason. */
  signal?: AbortSignal;
}

interface FetchedImage {
  bytes: Buffer;
  contentType: ImageContentType;
  finalUrl: string;
}

const DEFAULT_MAX_REDIRECTS = 3;
/** Statuses whose Location the fetchers follow (each hop re-checked). */
export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = "kinora-image-fetch/1.0";

type Hop = { redirect: string } | { bytes: Buffer; contentType: ImageContentType };

interface HopContext {
  field: string;
  maxBytes: number;
  allowed: readonly string[];
  signal: AbortSignal;
  /** JSON documents (client metadata) are taken as they are; images are sniffed. */
  json?: boolean;
  ca?: Buffer;
}

function readBody(
  res: IncomingMessage,
  ctx: HopContext,
  fail: (err: Error) => void,
  done: (hop: Hop) => void,
) {
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > ctx.maxBytes) {
    fail(tooLargeError(ctx.field, ctx.maxBytes));
    return;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let type: ImageContentType | null = null;
  res.on("data", (chunk: Buffer) => {
    total += chunk.length;
    if (total > ctx.maxBytes) return fail(tooLargeError(ctx.field, ctx.maxBytes));
    chunks.push(chunk);
    if (!type && !ctx.json && total >= SNIFF_BYTES) {
      // Decide from the first bytes so a non-image is not downloaded in full.
      type = sniffImageType(Buffer.concat(chunks).subarray(0, SNIFF_BYTES));
      if (!type || !ctx.allowed.includes(type)) fail(badTypeError(ctx.field, ctx.allowed));
    }
  });
  res.on("end", () => {
    if (ctx.json) {
      return done({
        bytes: Buffer.concat(chunks, total),
        // cast: a JSON answer goes the same way as an image's, which names its type; the caller reads it as JSON
        contentType: "application/json" as ImageContentType,
      });
    }
    if (!type || !ctx.allowed.includes(type)) return fail(badTypeError(ctx.field, ctx.allowed));
    done({ bytes: Buffer.concat(chunks, total), contentType: type });
  });
  res.on("error", fail);
}

/** A GET of `target` over a connection pinned to its checked addresses. */
export function openRequest(
  target: Target,
  addresses: ResolvedAddress[],
  accept: string,
  ca?: Buffer,
): ClientRequest {
  const mod = target.url.protocol === "https:" ? https : http;
  return mod.request({
    protocol: target.url.protocol,
    hostname: target.host, // keeps Host and TLS SNI/certificate checks on the name
    port: target.url.port || undefined,
    path: `${target.url.pathname}${target.url.search}`,
    method: "GET",
    headers: {
      accept,
      "accept-encoding": "identity",
      "user-agent": USER_AGENT,
    },
    // A fresh connection per hop: a pooled socket could belong to another resolution.
    agent: false,
    lookup: pinnedLookup(addresses),
    ...(ca ? { ca } : {}),
  });
}

/** Names a connection failure without internal detail (addresses, stack). */
export function describeNetworkError(code: string | undefined): string {
  if (!code) return "connection failed";
  if (/CERT|SELF_SIGNED|ERR_TLS/.test(code)) return "its TLS certificate is not valid for the host";
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ECONNRESET" || code === "EPIPE") return "connection reset";
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return "host unreachable";
  return code;
}

/** One GET with no automatic redirects: resolves with the image or the redirect target. */
function requestOnce(target: Target, addresses: ResolvedAddress[], ctx: HopContext) {
  return new Promise<Hop>((resolve, reject) => {
    if (ctx.signal.aborted) return reject(ctx.signal.reason);
    let settled = false;
    const accept = ctx.json ? "application/json" : IMAGE_CONTENT_TYPES.join(", ");
    const req = openRequest(target, addresses, accept, ctx.ca);
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      ctx.signal.removeEventListener("abort", onAbort);
      req.destroy(); // also ends an unread redirect body
      outcome();
    };
    const fail = (err: Error) => finish(() => reject(err));
    // cast: an AbortSignal's reason is the Error abort() was given (or the DOMException it makes)
    const onAbort = () => fail(ctx.signal.reason as Error);
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    req.on("error", (err: NodeJS.ErrnoException) => {
      const why = describeNetworkError(err.code);
      fail(
        new ImageFetchError(
          "network",
          `${ctx.field} could not be fetched (${why}); check the URL.`,
        ),
      );
    });
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        return finish(() => resolve({ redirect: location }));
      }
      if (status !== 200) {
        const why = `${ctx.field} answered HTTP ${status}; give a URL that serves the image itself.`;
        return fail(new ImageFetchError("http_status", why));
      }
      readBody(res, ctx, fail, (hop) => finish(() => resolve(hop)));
    });
    req.end();
  });
}

/**
 * Fetches a caller's image URL without letting it reach internal networks. Throws
 * UnsafeUrlError for forbidden targets (before any connection is made) and ImageFetchError
 * for everything else (size, time, type, HTTP status); rethrows `opts.signal`'s reason.
 */
export async function fetchPublicImage(url: string, opts: SafeFetchOptions): Promise<FetchedImage> {
  return fetchPublic(url, opts, false);
}

/**
 * A JSON document at a caller's URL (an OAuth client's metadata document) under the same
 * guard: public addresses only, pinned connection, size and time caps. Returns the bytes.
 */
export async function fetchPublicJsonBytes(url: string, opts: SafeFetchOptions): Promise<Buffer> {
  return (await fetchPublic(url, opts, true)).bytes;
}

async function fetchPublic(
  url: string,
  opts: SafeFetchOptions,
  json: boolean,
): Promise<FetchedImage> {
  const ca = opts.caForTests;
  const { value, finalUrl } = await followPublicUrl(
    url,
    opts,
    async (target, addresses, signal) => {
      const ctx: HopContext = {
        field: opts.field ?? "image_url",
        maxBytes: opts.maxBytes,
        allowed: opts.allowedContentTypes ?? IMAGE_CONTENT_TYPES,
        signal,
        json,
        ...(ca ? { ca } : {}),
      };
      const hop = await requestOnce(target, addresses, ctx);
      return "redirect" in hop ? hop : { value: hop };
    },
  );
  return { ...value, finalUrl };
}

/** What one hop of followPublicUrl found: where it redirects, or what it fetched. */
export type HopOutcome<T> = { redirect: string } | { value: T };

/**
 * Walks a caller's URL hop by hop under the guard: every hop's URL is checked and its host
 * resolved and checked (any forbidden address refuses) before `hop` connects, redirects are
 * followed up to `maxRedirects`, and one deadline (`timeoutMs`) covers them all. `hop` gets the
 * combined signal (deadline and the caller's). Rethrows `opts.signal`'s reason.
 */
export async function followPublicUrl<T>(
  url: string,
  opts: SafeFetchOptions,
  hop: (
    target: Target,
    addresses: ResolvedAddress[],
    signal: AbortSignal,
  ) => Promise<HopOutcome<T>>,
): Promise<{ value: T; finalUrl: string }> {
  const field = opts.field ?? "image_url";
  const noun = opts.noun ?? "image";
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  let target = checkUrl(url, field);
  try {
    for (let n = 0; ; n++) {
      const addresses = await resolveTarget(target, opts, field, signal);
      const result = await hop(target, addresses, signal);
      if ("value" in result) return { value: result.value, finalUrl: target.url.href };
      if (n >= maxRedirects) {
        throw new ImageFetchError(
          "too_many_redirects",
          `${field} redirected more than ${maxRedirects} times; give the ${noun}'s final URL.`,
        );
      }
      let next: string;
      try {
        next = new URL(result.redirect, target.url).href;
      } catch {
        throw new ImageFetchError(
          "network",
          `${field} redirected to an invalid URL; give the ${noun}'s final URL.`,
        );
      }
      target = checkUrl(next, field);
    }
  } catch (err) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (deadline.aborted && !(err instanceof ImageFetchError)) {
      throw new ImageFetchError(
        "timeout",
        `${field} took longer than ${opts.timeoutMs / 1000} s to download; give a faster or smaller ${noun} URL.`,
      );
    }
    throw err;
  }
}
