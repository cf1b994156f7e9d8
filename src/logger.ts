/**
 * JSON-lines logger. Secrets never reach its output: every line goes through `redact`, which
 * strips capabilities (keys, OAuth codes and tokens, signed link tokens) in any encoding.
 */
type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Structured JSON logging with secrets redacted. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

// Capabilities a log line must never carry: keys and OAuth codes and tokens by their prefix —
// anywhere in a string, glued to what precedes them (`?x=apmk_…`) — and the tokens kinora signs
// (src/signing.ts: `<kid>.<payload>.<HMAC>`), which are the upload, download, output and CSRF
// links' capability, wherever they appear (a /files/d/<token> path, a URL inside a parameter).
const KEY_PREFIXES = "pmk|pak|kat|kar|kac";
const SECRET_PATTERN = new RegExp(`(${KEY_PREFIXES})_[0-9A-Za-z_-]{8,}`, "gi");
const SIGNED_PATTERN = /[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;
const CAPABILITY_TEST = new RegExp(
  `(?:${KEY_PREFIXES})_[0-9A-Za-z_-]{8}|[A-Za-z0-9_-]{8}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{43}`,
  "i",
);
const holdsCapability = (decoded: string) => CAPABILITY_TEST.test(decoded);
const SECRET_PARAM =
  /((?:[?&;]|\\u0026)(?:key|token|access_token|refresh_token|code|code_verifier|wallet_key|x-amz-signature|x-amz-credential|x-amz-security-token)=)[^&\s"\\]*/gi;
// A run holding at least one escape (percent, JSON/JS `\uXXXX` or `\xXX`, HTML `&#…;`): decoded
// before it is checked, so `pmk%5F…`, `%255F`, `pmk\u005f…` or an escaped prefix cannot carry a
// capability past the redaction.
const ESCAPED_RUN =
  /[A-Za-z0-9%._~+\\&#;-]*(?:%[0-9A-Fa-f]{2}|\\+u[0-9A-Fa-f]{4}|\\+x[0-9A-Fa-f]{2}|&#x?[0-9A-Fa-f]+;)[A-Za-z0-9%._~+\\&#;-]*/g;
// Long base64/base64url or hex runs: decoded and checked the same way (a key sent encoded).
const BASE64_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
const HEX_RUN = /[0-9A-Fa-f]{32,}/g;

/** Whether `run` decodes to a capability at any alignment (it may be glued to what precedes it). */
function encodedCapability(run: string, encoding: "base64" | "hex"): boolean {
  const offsets = encoding === "hex" ? 2 : 4;
  for (let i = 0; i < offsets; i++) {
    if (holdsCapability(Buffer.from(run.slice(i), encoding).toString("latin1"))) return true;
  }
  return false;
}

function unescapeOnce(text: string): string {
  return text
    .replace(/\\\\/g, "\\")
    .replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
    .replace(/\\u([0-9A-Fa-f]{4})/g, (_m, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
    .replace(/\\x([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
    .replace(/&#x([0-9A-Fa-f]+);/gi, (_m, hex: string) =>
      String.fromCodePoint(Number.parseInt(hex, 16) % 0x110000),
    )
    .replace(/&#([0-9]+);/g, (_m, dec: string) => String.fromCodePoint(Number(dec) % 0x110000));
}

function decodeRepeatedly(text: string): string {
  let current = text;
  for (let i = 0; i < 4; i++) {
    const next = unescapeOnce(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * Strips capabilities from a log line in any encoding (percent to any depth, JSON/JS and HTML
 * escapes, base64, hex) wherever they appear, and the values of credential-like parameters.
 */
export function redact(text: string): string {
  return text
    .replace(ESCAPED_RUN, (run) => (holdsCapability(decodeRepeatedly(run)) ? "[redacted]" : run))
    .replace(BASE64_RUN, (run) => (encodedCapability(run, "base64") ? "[redacted]" : run))
    .replace(HEX_RUN, (run) => (encodedCapability(run, "hex") ? "[redacted]" : run))
    .replace(SIGNED_PATTERN, "[redacted-token]")
    .replace(SECRET_PATTERN, "$1_[redacted]")
    .replace(SECRET_PARAM, "$1[redacted]");
}

/** A logger at `level` writing JSON lines, with `base` fields on every line. */
export function createLogger(
  level: LogLevel = "info",
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return;
    const record = { time: new Date().toISOString(), level: lvl, msg, ...base, ...fields };
    write(redact(serialise(record)));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}

/**
 * The record as JSON; should its fields not serialise (nested past what JSON.stringify's
 * recursion survives, or circular), the line still goes out, saying so: logging never throws.
 */
function serialise(record: Record<string, unknown>): string {
  try {
    return JSON.stringify(record, errorReplacer);
  } catch (err) {
    const { time, level, msg } = record;
    const unwritten = err instanceof Error ? err.message : String(err);
    return JSON.stringify({ time, level, msg, unwritten_fields: unwritten });
  }
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack };
  }
  return value;
}

/** A logger that writes nothing (tests, tools). */
export const silentLogger: Logger = createLogger("silent");
