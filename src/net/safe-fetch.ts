/**
 * SSRF-safe fetching of caller-supplied image URLs (`image_url`).
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
 *   image type is decided by magic bytes only. The server's Content-Type is ignored because
 *   CDNs often send application/octet-stream; what matters is what the bytes are.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import http, { type ClientRequest, type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import {
  addressRefusal,
  badTypeError,
  ImageFetchError,
  tooLargeError,
  UnsafeUrlError,
} from "./fetch-errors.js";
import {
  IMAGE_CONTENT_TYPES,
  type ImageContentType,
  SNIFF_BYTES,
  sniffImageType,
} from "./image-sniff.js";
import { forbiddenHostName, isForbiddenAddress } from "./ip-ranges.js";

export { ImageFetchError, type ImageFetchErrorCode, UnsafeUrlError } from "./fetch-errors.js";
export { isForbiddenAddress } from "./ip-ranges.js";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface SafeFetchOptions {
  maxBytes: number;
  /** One deadline for the whole fetch, redirects included. */
  timeoutMs: number;
  maxRedirects?: number;
  /** Sniffed types to accept; defaults to JPEG, PNG and WebP. */
  allowedContentTypes?: string[];
  /** Test seam; defaults to `dns.promises.lookup(host, { all: true })`. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Test seam: lets a local test server's address through. Never set in production. */
  allowPrivateForTests?: (address: string) => boolean;
  /** Test seam: the CA to trust instead of the system's (a local https server). */
  caForTests?: Buffer;
  /** The request field named in error messages; defaults to "image_url". */
  field?: string;
  /** Caller cancellation (e.g. the HTTP request went away); rethrown as its reason. */
  signal?: AbortSignal;
}

export interface FetchedImage {
  bytes: Buffer;
  contentType: ImageContentType;
  finalUrl: string;
}

const MAX_URL_LENGTH = 2048;
const DEFAULT_MAX_REDIRECTS = 3;
const MAX_ADDRESSES = 16;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = "kinora-image-fetch/1.0";

interface Target {
  url: URL;
  /** Host without IPv6 brackets. */
  host: string;
}

function isAllowedPort(url: URL): boolean {
  if (url.port === "") return true; // the scheme default, 80 or 443
  const port = Number(url.port);
  return port === 80 || port === 443 || (port >= 1024 && port <= 65535);
}

function checkUrl(raw: string, field: string): Target {
  if (raw.length > MAX_URL_LENGTH) {
    throw new UnsafeUrlError(
      `${field} is longer than ${MAX_URL_LENGTH} characters; give a shorter URL.`,
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError(`${field} is not a valid URL; give a public http(s) URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UnsafeUrlError(`${field} must use http or https; give a public http(s) URL.`);
  }
  if (url.username || url.password) {
    throw new UnsafeUrlError(`${field} must not contain a user name or password; remove them.`);
  }
  if (!isAllowedPort(url)) {
    throw new UnsafeUrlError(
      `${field} uses port ${url.port}, which is not allowed; use port 80, 443 or 1024–65535.`,
    );
  }
  // WHATWG URL has already turned 2130706433, 0x7f000001, 0177.0.0.1, 127.1 into dotted quads.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return { url, host };
}

function checkAddress(field: string, verb: string, address: string, opts: SafeFetchOptions) {
  const reason = isForbiddenAddress(address);
  if (reason && !opts.allowPrivateForTests?.(address)) {
    throw addressRefusal(field, verb, address, reason);
  }
}

async function defaultLookup(hostname: string): Promise<ResolvedAddress[]> {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

async function resolveTarget(
  target: Target,
  opts: SafeFetchOptions,
  field: string,
  signal: AbortSignal,
): Promise<ResolvedAddress[]> {
  const family = isIP(target.host);
  if (family === 4 || family === 6) {
    checkAddress(field, "points at", target.host, opts);
    return [{ address: target.host, family }];
  }
  const nameReason = forbiddenHostName(target.host);
  if (nameReason) {
    throw new UnsafeUrlError(
      `${field} points at a non-public host name (${target.host}); give a public http(s) URL.`,
    );
  }
  let found: ResolvedAddress[];
  try {
    found = await raceAbort((opts.lookup ?? defaultLookup)(target.host), signal);
  } catch (err) {
    if (signal.aborted) throw err;
    found = [];
  }
  if (found.length === 0) {
    throw new ImageFetchError(
      "dns",
      `${field} host ${target.host} could not be resolved; check the URL.`,
    );
  }
  // Refuse if ANY answer is forbidden: an attacker controls which one a client would pick.
  for (const a of found) checkAddress(field, "resolves to", a.address, opts);
  return found.slice(0, MAX_ADDRESSES);
}

/** A `lookup` for http.request that only ever answers with the already-checked addresses. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
    const list = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
    const first = list[0];
    if (!first) {
      const err: NodeJS.ErrnoException = new Error("no checked address for this family");
      err.code = "ENOTFOUND";
      callback(err, "", 0);
    } else if (options.all) {
      callback(null, list);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

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
        contentType: "application/json" as ImageContentType,
      });
    }
    if (!type || !ctx.allowed.includes(type)) return fail(badTypeError(ctx.field, ctx.allowed));
    done({ bytes: Buffer.concat(chunks, total), contentType: type });
  });
  res.on("error", fail);
}

function openRequest(
  target: Target,
  addresses: ResolvedAddress[],
  json = false,
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
      accept: json ? "application/json" : IMAGE_CONTENT_TYPES.join(", "),
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
function describeNetworkError(code: string | undefined): string {
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
    const req = openRequest(target, addresses, ctx.json, ctx.ca);
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      ctx.signal.removeEventListener("abort", onAbort);
      req.destroy(); // also ends an unread redirect body
      outcome();
    };
    const fail = (err: Error) => finish(() => reject(err));
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
  const field = opts.field ?? "image_url";
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  const ctx: HopContext = {
    field,
    maxBytes: opts.maxBytes,
    allowed: opts.allowedContentTypes ?? IMAGE_CONTENT_TYPES,
    signal,
    json,
    ...(opts.caForTests ? { ca: opts.caForTests } : {}),
  };
  let target = checkUrl(url, field);
  try {
    for (let hop = 0; ; hop++) {
      const addresses = await resolveTarget(target, opts, field, signal);
      const result = await requestOnce(target, addresses, ctx);
      if ("bytes" in result) return { ...result, finalUrl: target.url.href };
      if (hop >= maxRedirects) {
        throw new ImageFetchError(
          "too_many_redirects",
          `${field} redirected more than ${maxRedirects} times; give the image's final URL.`,
        );
      }
      let next: string;
      try {
        next = new URL(result.redirect, target.url).href;
      } catch {
        throw new ImageFetchError(
          "network",
          `${field} redirected to an invalid URL; give the image's final URL.`,
        );
      }
      target = checkUrl(next, field);
    }
  } catch (err) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (deadline.aborted && !(err instanceof ImageFetchError)) {
      throw new ImageFetchError(
        "timeout",
        `${field} took longer than ${opts.timeoutMs / 1000} s to download; give a faster or smaller image URL.`,
      );
    }
    throw err;
  }
}
