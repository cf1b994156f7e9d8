/**
 * Classifies IP addresses and host names that a server-side fetch of a caller's URL must
 * never reach: loopback, private, link-local, cloud metadata, reserved and special-purpose
 * ranges (IANA IPv4/IPv6 special-purpose registries), including IPv4 addresses smuggled
 * inside IPv6 forms (IPv4-mapped, NAT64, 6to4).
 *
 * The check fails closed: anything that does not parse as a plain IPv4/IPv6 address is
 * forbidden, and IPv6 outside global unicast (2000::/3) is forbidden.
 */
import { isIP } from "node:net";

type ForbiddenReason =
  | "invalid"
  | "unspecified"
  | "loopback"
  | "private"
  | "cgnat"
  | "link-local"
  | "metadata"
  | "reserved"
  | "documentation"
  | "benchmarking"
  | "multicast"
  | "broadcast"
  | "unique-local"
  | "site-local";

type Range = readonly [prefix: string, bits: number, reason: ForbiddenReason];

// Most specific first: the first match names the reason.
const V4_RANGES: readonly Range[] = [
  ["169.254.169.254", 32, "metadata"], // AWS, GCP, Azure, OpenStack, Oracle
  ["100.100.100.200", 32, "metadata"], // Alibaba Cloud
  ["168.63.129.16", 32, "metadata"], // Azure WireServer: a public-looking platform endpoint
  ["255.255.255.255", 32, "broadcast"],
  ["0.0.0.0", 8, "unspecified"], // "this network"; 0.0.0.0 connects to localhost on Linux
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "cgnat"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"], // IETF protocol assignments
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "reserved"], // deprecated 6to4 relay anycast
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

const V6_RANGES: readonly Range[] = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["fd00:ec2::254", 128, "metadata"], // AWS IMDS over IPv6
  ["::", 96, "reserved"], // deprecated IPv4-compatible addresses
  ["64:ff9b:1::", 48, "private"], // local-use NAT64 (RFC 8215)
  ["100::", 64, "reserved"], // discard-only
  ["2001::", 23, "reserved"], // IETF protocol assignments, incl. Teredo 2001::/32
  ["2001:db8::", 32, "documentation"],
  ["3fff::", 20, "documentation"],
  ["fc00::", 7, "unique-local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];

/** Host names that reach cloud metadata services or are non-public by definition. */
const FORBIDDEN_HOSTS = new Set([
  "localhost",
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
]);
const FORBIDDEN_SUFFIXES = [".localhost", ".internal", ".local", ".home.arpa", ".lan", ".intranet"];

function parseV4(ip: string): number[] | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : Number.NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : null;
}

/** Parses an IPv6 address (already validated by net.isIP) into 16 bytes. */
function parseV6(ip: string): number[] | null {
  let text = ip;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    const v4 = parseV4(text.slice(lastColon + 1));
    if (!v4) return null;
    tail = v4;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head = "", rest] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = rest ? rest.split(":") : [];
  const missing = 8 - left.length - right.length;
  if (rest === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...left, ...Array<string>(rest === undefined ? 0 : missing).fill("0"), ...right];
  const bytes: number[] = [];
  for (const g of groups) {
    const n = Number.parseInt(g, 16);
    if (!/^[0-9a-f]{1,4}$/i.test(g) || Number.isNaN(n)) return null;
    bytes.push(n >> 8, n & 0xff);
  }
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

function inPrefix(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i / 8] ?? 0) & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

type CompiledRange = readonly [prefix: number[], bits: number, reason: ForbiddenReason];

function compile(ranges: readonly Range[], parse: (ip: string) => number[] | null) {
  return ranges.map(([text, bits, reason]): CompiledRange => {
    const prefix = parse(text);
    if (!prefix) throw new Error(`bad range ${text}`);
    return [prefix, bits, reason];
  });
}

function match(bytes: number[], ranges: readonly CompiledRange[]): ForbiddenReason | null {
  for (const [prefix, bits, reason] of ranges) {
    if (inPrefix(bytes, prefix, bits)) return reason;
  }
  return null;
}

const V4 = compile(V4_RANGES, parseV4);
const V6 = compile(V6_RANGES, parseV6);

function v4Reason(bytes: number[]): ForbiddenReason | null {
  return match(bytes, V4);
}

// IPv6 forms that carry an IPv4 address the packet really goes to (or may be relayed to).
const EMBEDDED_V4 = (
  [
    ["::ffff:0:0", 96, 12], // IPv4-mapped: a dual-stack socket connects to the IPv4 address
    ["64:ff9b::", 96, 12], // NAT64 well-known prefix
    ["2002::", 16, 2], // 6to4
  ] as const
).map(([text, bits, offset]) => [parseV6(text) ?? [], bits, offset] as const);

function v6Reason(bytes: number[]): ForbiddenReason | null {
  for (const [prefix, bits, offset] of EMBEDDED_V4) {
    if (inPrefix(bytes, prefix, bits)) {
      const inner = v4Reason(bytes.slice(offset, offset + 4));
      if (inner) return inner;
      // A public IPv4 behind a mapped/NAT64 form is as public as the IPv4 itself.
      if (offset === 12) return null;
    }
  }
  const reason = match(bytes, V6);
  if (reason) return reason;
  // Only global unicast is public; everything else is unassigned or special.
  return ((bytes[0] ?? 0) & 0xe0) === 0x20 ? null : "reserved";
}

/**
 * Returns why an address must not be fetched ("loopback", "private", "metadata", …) or
 * null when it is a public unicast address. Accepts canonical IPv4 and IPv6 text (with or
 * without brackets); anything else is "invalid".
 */
export function isForbiddenAddress(ip: string): ForbiddenReason | null {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  // A zone id only has meaning for link-local/scoped addresses: never public.
  if (bare.includes("%")) return "link-local";
  const family = isIP(bare);
  if (family === 4) {
    const bytes = parseV4(bare);
    return bytes ? v4Reason(bytes) : "invalid";
  }
  if (family === 6) {
    const bytes = parseV6(bare);
    return bytes ? v6Reason(bytes) : "invalid";
  }
  return "invalid";
}

/**
 * Returns why a host name (not an IP literal) must not be fetched, or null. Single-label
 * names are refused because resolver search domains turn them into internal names.
 */
export function forbiddenHostName(hostname: string): string | null {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (FORBIDDEN_HOSTS.has(name)) return name === "localhost" ? "loopback" : "metadata";
  if (FORBIDDEN_SUFFIXES.some((s) => name.endsWith(s))) return "internal";
  if (!name.includes(".")) return "single-label";
  return null;
}

/**
 * Whether an address is this machine's own loopback: 127.0.0.0/8, ::1, or an IPv4-mapped
 * 127.x (a dual-stack socket connects to the IPv4 address). Stricter than the "loopback"
 * reason above, which also names NAT64 and 6to4 forms of 127.x — those leave the machine
 * for a gateway or relay, so the development setting ALLOW_LOOPBACK_URLS never lets them by.
 */
export function isLoopbackAddress(ip: string): boolean {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const family = isIP(bare);
  if (family === 4) return parseV4(bare)?.[0] === 127;
  if (family !== 6) return false;
  const bytes = parseV6(bare);
  if (!bytes) return false;
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return true;
  const mapped =
    bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped && bytes[12] === 127;
}
