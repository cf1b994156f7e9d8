/**
 * Which URLs a server-side fetch of a caller's URL may reach (the rules safe-fetch.ts lists):
 * http(s) only, no credentials, default or unprivileged ports, and a host whose every resolved
 * address is public. A checked target's connection is pinned to the addresses checked here.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { addressRefusal, ImageFetchError, LOOPBACK_HINT, UnsafeUrlError } from "./fetch-errors.js";
import { forbiddenHostName, isForbiddenAddress, isLoopbackAddress } from "./ip-ranges.js";

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** How addresses are found and which private ones a test lets through. */
export interface TargetGuard {
  /** Test seam; defaults to `dns.promises.lookup(host, { all: true })`. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Test seam: lets a local test server's address through. Never set in production. */
  allowPrivateForTests?: (address: string) => boolean;
  /**
   * The operator's development setting (ALLOW_LOOPBACK_URLS): this machine's loopback
   * (127.0.0.0/8, ::1, and the name localhost) may be reached. Private, link-local, metadata
   * and every other forbidden range stay refused.
   */
  allowLoopback?: boolean;
}

const MAX_URL_LENGTH = 2048;
const MAX_ADDRESSES = 16;

/** One hop's URL, checked (scheme, credentials, port), and its host. */
export interface Target {
  url: URL;
  /** Host without IPv6 brackets. */
  host: string;
}

function isAllowedPort(url: URL): boolean {
  if (url.port === "") return true; // the scheme default, 80 or 443
  const port = Number(url.port);
  return port === 80 || port === 443 || (port >= 1024 && port <= 65535);
}

/** Parses a caller's URL and refuses what can never be fetched (scheme, credentials, length). */
export function checkUrl(raw: string, field: string): Target {
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

function checkAddress(field: string, verb: string, address: string, opts: TargetGuard) {
  const reason = isForbiddenAddress(address);
  if (!reason || (opts.allowLoopback && isLoopbackAddress(address))) return;
  if (!opts.allowPrivateForTests?.(address)) {
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

/** Resolves the host and refuses private, loopback and other forbidden addresses. */
export async function resolveTarget(
  target: Target,
  opts: TargetGuard,
  field: string,
  signal: AbortSignal,
): Promise<ResolvedAddress[]> {
  const family = isIP(target.host);
  if (family === 4 || family === 6) {
    checkAddress(field, "points at", target.host, opts);
    return [{ address: target.host, family }];
  }
  const nameReason = forbiddenHostName(target.host);
  // localhost resolves like any name; each address it gives is then checked as loopback.
  const loopbackName = nameReason === "loopback" && opts.allowLoopback;
  if (nameReason && !loopbackName) {
    const hint = nameReason === "loopback" ? LOOPBACK_HINT : "";
    throw new UnsafeUrlError(
      `${field} points at a non-public host name (${target.host}); give a public http(s) URL${hint}.`,
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
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
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

/**
 * Checks a caller's URL without connecting: scheme, credentials, port, and every address its
 * host resolves to. Throws UnsafeUrlError (or ImageFetchError for a host that does not resolve).
 */
export async function checkPublicUrl(
  url: string,
  opts: TargetGuard & { field?: string; timeoutMs: number },
): Promise<void> {
  const field = opts.field ?? "image_url";
  await resolveTarget(checkUrl(url, field), opts, field, AbortSignal.timeout(opts.timeoutMs));
}
