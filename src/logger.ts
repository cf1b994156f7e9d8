/**
 * JSON-lines logger. Secrets never reach it: `redact` strips key material from anything that
 * looks like a pmk_/pak_ key or a `key=` query parameter before it is written.
 */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const SECRET_PATTERN = /\b(pmk|pak|kat|kar|kac)_[0-9A-Za-z_-]{8,}/gi;
const SECRET_TEST = /\b(pmk|pak|kat|kar|kac)_[0-9A-Za-z_-]{8,}/i;
const SECRET_PARAM = /([?&](?:key|token|access_token|refresh_token|code)=)[^&\s"]*/gi;
// A run of URL characters holding at least one percent-escape: decoded before it is checked,
// so `?x=pmk%5F…` (or %255F, or an escaped prefix) cannot carry a key past the redaction.
const ENCODED_RUN = /[A-Za-z0-9%._~+-]*%[0-9A-Fa-f]{2}[A-Za-z0-9%._~+-]*/g;

function decodeRepeatedly(text: string): string {
  let current = text;
  for (let i = 0; i < 4 && current.includes("%"); i++) {
    const next = current.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    if (next === current) break;
    current = next;
  }
  return current;
}

/** Strips key material in any URL encoding, and the values of credential-like parameters. */
export function redact(text: string): string {
  return text
    .replace(ENCODED_RUN, (run) => (SECRET_TEST.test(decodeRepeatedly(run)) ? "[redacted]" : run))
    .replace(SECRET_PATTERN, "$1_[redacted]")
    .replace(SECRET_PARAM, "$1[redacted]");
}

export function createLogger(
  level: LogLevel = "info",
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return;
    const record = { time: new Date().toISOString(), level: lvl, msg, ...base, ...fields };
    write(redact(JSON.stringify(record, errorReplacer)));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack };
  }
  return value;
}

export const silentLogger: Logger = createLogger("silent");
