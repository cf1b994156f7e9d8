/**
 * Scanning log lines for capabilities: a logger that keeps every line it writes (through the
 * real logger, so through its redaction), and a search of those lines for given secrets in the
 * encodings a line could carry them in.
 */
import { createLogger, type Logger } from "../src/logger.js";

export function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: createLogger("debug", {}, (line) => lines.push(line)), lines };
}

const jsonEscaped = (s: string) =>
  [...s].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");

/** The forms a secret could take in a line: as is, percent-encoded (twice), base64, hex, JSON escapes. */
export function encodingsOf(secret: string): string[] {
  const once = encodeURIComponent(secret).replace(
    /[_.-]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return [
    secret,
    once,
    encodeURIComponent(once),
    Buffer.from(secret).toString("base64"),
    Buffer.from(secret).toString("base64url"),
    Buffer.from(secret).toString("hex"),
    jsonEscaped(secret),
  ];
}

/**
 * Where any of `secrets` shows in `lines`: in any of its encodings, or a 16-character piece of
 * its random part (`tail`: the part after a key's prefix, or a signed token's signature).
 */
export function capabilitiesIn(
  lines: readonly string[],
  secrets: readonly { name: string; value: string; tail: string }[],
): string[] {
  const found: string[] = [];
  for (const s of secrets) {
    const needles = [...encodingsOf(s.value), s.tail.slice(0, 16), s.tail.slice(-16)];
    for (const line of lines) {
      for (const needle of needles) {
        if (line.includes(needle)) found.push(`${s.name} as ${needle.slice(0, 24)}… in ${line}`);
      }
    }
  }
  return found;
}
