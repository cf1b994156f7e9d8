/** How settings are written: sizes with a unit, checked against a range; comma-separated lists. */
import { z } from "zod";

/** One mebibyte and one gibibyte, in bytes: the units sizes are shown and bounded in. */
export const MIB = 1024 ** 2;
export const GIB = 1024 ** 3;

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: MIB,
  gib: GIB,
  tib: 1024 ** 4,
};

/**
 * A size in bytes, written as a whole number with an optional unit (`268435456`, `256MiB`,
 * `50GB`; KiB/MiB/GiB/TiB are powers of 1024, KB/MB/GB/TB of 1000), from `min` to `max`.
 */
export function byteSize(min: number, max: number, fallback: number) {
  const show = (n: number) => (n % GIB === 0 ? `${n / GIB} GiB` : `${n / MIB} MiB`);
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return fallback;
      const m = /^\s*(\d{1,16})\s*([a-z]*)\s*$/i.exec(v);
      const unit = m ? UNITS[(m[2] ?? "").toLowerCase()] : undefined;
      const n = m && unit !== undefined ? Number(m[1]) * unit : Number.NaN;
      if (!Number.isSafeInteger(n) || n < min || n > max) {
        ctx.addIssue({
          code: "custom",
          message: `must be a size from ${show(min)} to ${show(max)}, in bytes or with a unit such as 64MiB or 50GiB; got ${JSON.stringify(v.slice(0, 40))}`,
        });
        return z.NEVER;
      }
      return n;
    });
}

/** A comma-separated list (spaces around items and empty items dropped; unset: empty). */
export function commaList() {
  return z
    .string()
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    );
}
