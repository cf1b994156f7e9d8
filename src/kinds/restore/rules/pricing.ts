/**
 * The restore price table — the only place restore prices live. Quote, create, GET
 * /cloud/prices and the MCP get_prices tool all read it.
 */
import { type ApiError, invalidField, overALimit } from "../../../domain/errors.js";
import { displayCents } from "../../../domain/money.js";
import { RESTORE_LIMIT_CEILINGS, RESTORE_LIMITS, type RestoreLimits } from "./limits.js";

/** The restore qualities, cheapest first. */
export const RESTORE_QUALITIES = ["faithful", "enhanced", "enhanced_max"] as const;
/** One of RESTORE_QUALITIES. */
export type RestoreQuality = (typeof RESTORE_QUALITIES)[number];
/** The quality when none is asked for. */
export const DEFAULT_QUALITY: RestoreQuality = "enhanced";

interface QualityPrice {
  quality: RestoreQuality;
  label: string;
  /** Covers the first `includedSec` seconds. */
  baseCents: number;
  /** Each started minute after the included ones. */
  perMinuteCents: number;
  /** What the quality does, in one customer-facing line (docs/restore.md has the measurements). */
  summary: string;
  /** The same in a few words, where space is short (a tool's field description). */
  brief: string;
  /**
   * Wall seconds one second of progressive SD video takes on a 2-core server, clean and grainy
   * (this engine's ffmpeg chain, measured: docs/restore.md "Speed"); the customer's "an hour
   * takes" comes from it.
   */
  sdSecondsPerSecond: readonly [clean: number, grainy: number];
  /** What is slower still than the grainy figure, when something is. */
  slower?: string;
}

/** Seconds the base price covers. */
const INCLUDED_SEC = 5 * 60;
/** Pictures larger than this in either dimension cost HIGH_RES_FACTOR times more. */
const HIGH_RES = { width: 1920, height: 1080 } as const;
const HIGH_RES_FACTOR = 1.5;

/**
 * Wall seconds per second of progressive SD video on a 2-core server, a clean pan and a grainy
 * one (grain σ 7), measured with `npx tsx bench/quality/speed.ts 21` and `… 6 grain-7` on
 * 2026-11-29 at a load average of 6–8 (runs vary by ±50 % with the load; at 17–19 everything took
 * up to 3.4× as long: docs/restore.md "Speed"). Studio Max's non-local means runs only on grain:
 * it is most of the difference. Enhanced's grainy figure × 1.13 since 2026-12-03: fspp on the
 * colour planes (`fspp-colour`) took its `… 6 grain-7` run from 4.65 to 5.25 s, measured against
 * the commit before, alternated twice in one sitting (load 0.8–1.5).
 */
const SD_SECONDS_PER_SECOND: Record<RestoreQuality, readonly [number, number]> = {
  faithful: [25.2 / 21, 10.0 / 6],
  enhanced: [27.5 / 21, (16.1 * 1.13) / 6],
  enhanced_max: [51.4 / 21, 60.1 / 6],
};

/** "about 40 minutes", "about 2½ hours": how long an hour of SD video takes, as people say it. */
export function hourOfSdTakes(secondsPerSecond: number): string {
  const minutes = secondsPerSecond * 60;
  if (minutes < 75) return `about ${Math.max(5, Math.round(minutes / 5) * 5)} minutes`;
  const halves = Math.round(minutes / 30) / 2;
  return `about ${Math.floor(halves)}${halves % 1 ? "½" : ""} hours`;
}

/** How long an hour of SD takes at a quality, clean to grainy, in customer words. */
export function hourOfSdText(row: Pick<QualityPrice, "sdSecondsPerSecond" | "slower">): string {
  const [clean, grainy] = row.sdSecondsPerSecond;
  const a = hourOfSdTakes(clean);
  const b = hourOfSdTakes(grainy);
  const slower = row.slower ? `; ${row.slower}` : "";
  const range =
    a === b
      ? `${a}${slower ? ` (${slower.slice(2)})` : ""}`
      : `${a} (clean) to ${b.replace("about ", "")} (grainy tape${slower})`;
  return `${range} on a busy 2-core server; a quieter or larger server is faster, HD slower.`;
}

/** Each quality's label, base price, per-minute price and what it does. */
export const PRICE_TABLE: Record<RestoreQuality, QualityPrice> = {
  faithful: {
    quality: "faithful",
    label: "Standard",
    baseCents: 299,
    perMinuteCents: 50,
    summary:
      "Repairs and cleans at the original size, changing nothing else: deinterlaces, takes out grain it measures in your video (a clean picture is left alone), mends tape dropouts (white streaks), blocks left by earlier compression and colour that slipped sideways, removes hum and hiss, evens the loudness.",
    brief: "repaired and cleaned at the original size",
    sdSecondsPerSecond: SD_SECONDS_PER_SECOND.faithful,
  },
  enhanced: {
    quality: "enhanced",
    label: "Enhanced",
    baseCents: 499,
    perMinuteCents: 90,
    summary:
      "Standard's repairs, plus faded colour and contrast brought back (a foggy or muted scene keeps its look), shake steadied, and SD enlarged to 720p HD (a picture starved of bits keeps its size where enlarging it measured no better).",
    brief: "plus faded colour revived, shake steadied, 720p",
    sdSecondsPerSecond: SD_SECONDS_PER_SECOND.enhanced,
  },
  enhanced_max: {
    quality: "enhanced_max",
    label: "Studio Max",
    baseCents: 899,
    perMinuteCents: 160,
    summary:
      "Enhanced, plus a slower, finer grain removal (coarse grain and worn tape also averaged along the motion over five frames), sharpening where the picture is measured soft or was enlarged from a smaller frame (not where it shows compression blocks), interlaced video as 50/60 full frames a second, and 1080p HD at a higher bitrate (bigger files; a picture starved of bits into compression blocks is delivered as at Enhanced: enlarged further, it measured worse).",
    brief: "plus finer grain removal, sharpening, 1080p",
    sdSecondsPerSecond: SD_SECONDS_PER_SECOND.enhanced_max,
    // Coarse grain (film grain, a worn tape) gets non-local means on larger patches: 74.8 s for
    // 6 s of the tuning pan with grain-8-x2 on a quiet 2-core machine (load 2.6), about 12½ hours
    // an hour (npx tsx bench/quality/speed.ts 6 grain-8-x2, 2026-11-29); since 2026-11-30 it and
    // tape whose colour is noisier than its luma also get the motion-following average
    // (DENOISE.averageWhere), which about doubles the time: 145.7 s for 6 s of the tuning pan
    // with grain-10-x3 (load 1.6–2.7; `npx tsx bench/quality/speed.ts 6 grain-10-x3`,
    // 2026-11-30, the ±3 px search), 24.3 s per s, so about 24½ hours. Fine grain (the grainy figure,
    // grain-7) skips it. Each field of interlaced tape is denoised as a frame: the tuning pan as
    // grainy VHS (tape-a: BFF, grain σ 9, colour noisier than luma) took 154.7 s for 6 s at load
    // 2.1–2.5, 25.8 s per s, so about 26 hours (`npx tsx bench/quality/speed.ts 6 tape-a`,
    // 2026-12-01; 0.008× real time at load 21 on 2026-11-29).
    slower:
      "coarse grain and colour-noisy tape about 24½ hours; grainy interlaced tape (VHS) about 26 hours",
  },
};

// The caller's limits live with every other restore limit (./limits.ts); re-exported here for
// the readers that find them beside the prices.
export { RESTORE_LIMITS };

/** Video types accepted for upload (the engine decodes them all with ffmpeg). */
export const VIDEO_CONTENT_TYPES = [
  "video/mp4",
  "video/quicktime",
  "video/x-matroska",
  "video/webm",
  "video/x-msvideo",
  "video/avi",
  "video/mpeg",
  "video/mp2t",
  "video/3gpp",
  "video/3gpp2",
  "video/x-m4v",
  "video/x-flv",
  "video/ogg",
  "video/x-ms-wmv",
  "video/dv",
] as const;

/** What a restore's price depends on: quality, length and picture size. */
export interface PriceInput {
  quality: RestoreQuality;
  durationSec: number;
  width?: number | undefined;
  height?: number | undefined;
}

interface Price {
  amountCents: number;
  display: string;
  quality: RestoreQuality;
  label: string;
  extraMinutes: number;
  highRes: boolean;
}

function isHighRes(width?: number, height?: number): boolean {
  return (width ?? 0) > HIGH_RES.width || (height ?? 0) > HIGH_RES.height;
}

/** Base price up to 5 min, then per started minute; ×1.5 above 1920×1080, rounded up to the cent. */
export function priceRestore(input: PriceInput): Price {
  const row = PRICE_TABLE[input.quality];
  const extraMinutes = Math.max(0, Math.ceil((input.durationSec - INCLUDED_SEC) / 60));
  let cents = row.baseCents + extraMinutes * row.perMinuteCents;
  const highRes = isHighRes(input.width, input.height);
  // ×1.5 in integer arithmetic: (3c)/2 rounded up, so no float can make it a cent off.
  if (highRes) cents = Math.ceil((cents * 3) / 2);
  return {
    amountCents: cents,
    display: displayCents(cents),
    quality: input.quality,
    label: row.label,
    extraMinutes,
    highRes,
  };
}

/** "6 hours", "90 minutes", "45 seconds": a limit in seconds as people say it. */
function spokenSeconds(sec: number): string {
  if (sec % 3600 === 0) return `${sec / 3600} hour${sec === 3600 ? "" : "s"}`;
  if (sec % 60 === 0) return `${sec / 60} minutes`;
  return `${sec} seconds`;
}

/** "50 GiB", "700 MiB": a limit in bytes as the README's settings write it. */
export function spokenBytes(bytes: number): string {
  for (const [unit, size] of [
    ["TiB", 1024 ** 4],
    ["GiB", 1024 ** 3],
    ["MiB", 1024 ** 2],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(2))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * The first limit the input breaks, as the refusal naming the field; null when within limits.
 * `limits` are the server's (the operator's settings), or the ceilings where those are unknown.
 */
export function restoreLimitProblem(
  input: {
    durationSec: number;
    width?: number | undefined;
    height?: number | undefined;
    sizeBytes?: number | undefined;
  },
  limits: RestoreLimits,
): ApiError | null {
  const L = { ...RESTORE_LIMITS, ...limits };
  // Malformed (not a length or size at all) is a 400; 422 is kept for "over a limit".
  const bad = invalidField;
  const over = overALimit;
  if (!Number.isFinite(input.durationSec) || !(input.durationSec > 0)) {
    return bad("duration_sec", "must be a number of seconds above 0.");
  }
  // Past the ceilings nothing has a price on any server; the server's own limits are lower.
  const anyServer =
    limits === RESTORE_LIMIT_CEILINGS ? " on any server (GET /cloud/prices gives this one's)" : "";
  if (input.durationSec > L.maxDurationSec) {
    return over(
      "duration_sec",
      `must be at most ${L.maxDurationSec} seconds (${spokenSeconds(L.maxDurationSec)})${anyServer}; split longer videos.`,
    );
  }
  const dims = [
    ["width", input.width, L.maxWidth],
    ["height", input.height, L.maxHeight],
  ] as const;
  for (const [field, value, max] of dims) {
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) return bad(field, "must be at least 1 pixel.");
    if (value > max) return over(field, `must be at most ${max} pixels.`);
  }
  if (input.sizeBytes !== undefined) {
    if (!Number.isSafeInteger(input.sizeBytes) || input.sizeBytes < 1) {
      return bad("size", "must be the file size in bytes, at least 1.");
    }
    if (input.sizeBytes > L.maxSizeBytes) {
      const most = `${L.maxSizeBytes} bytes (${spokenBytes(L.maxSizeBytes)})`;
      return over("size", `must be at most ${most}${anyServer}.`);
    }
  }
  return null;
}

/** The table as the API shows it (GET /cloud/prices, MCP get_prices), with the server's limits. */
export function priceTableView(limits: RestoreLimits) {
  return {
    currency: "usd",
    included_minutes: INCLUDED_SEC / 60,
    high_res: {
      above: `${HIGH_RES.width}x${HIGH_RES.height}`,
      factor: HIGH_RES_FACTOR,
      rule: "Either dimension above 1920×1080 multiplies the price by 1.5, rounded up to the cent.",
    },
    qualities: RESTORE_QUALITIES.map((q) => {
      const row = PRICE_TABLE[q];
      return {
        quality: q,
        label: row.label,
        base_cents: row.baseCents,
        base_display: displayCents(row.baseCents),
        per_extra_minute_cents: row.perMinuteCents,
        per_extra_minute_display: displayCents(row.perMinuteCents),
        summary: `${row.label}: ${displayCents(row.baseCents)} up to 5 min, then ${displayCents(row.perMinuteCents)} per started minute.`,
        does: row.summary,
        hour_of_sd_takes: hourOfSdText(row),
      };
    }),
    limits: { ...restoreLimitsView(limits), content_types: [...VIDEO_CONTENT_TYPES] },
  };
}

/**
 * The server's restore limits as every answer that prices a restore states them (the price
 * table and each quote): a caller with a tape learns before paying what this server takes.
 */
export function restoreLimitsView(limits: RestoreLimits) {
  return {
    max_duration_sec: limits.maxDurationSec,
    max_width: RESTORE_LIMITS.maxWidth,
    max_height: RESTORE_LIMITS.maxHeight,
    max_size_bytes: limits.maxSizeBytes,
    summary: `Videos up to ${spokenSeconds(limits.maxDurationSec)} and ${spokenBytes(limits.maxSizeBytes)}, up to ${RESTORE_LIMITS.maxWidth}×${RESTORE_LIMITS.maxHeight}.`,
  };
}

/**
 * Run seconds per second of video, by quality, assumed until this deployment has finished
 * restores to measure (queue ETA), then replaced by what this deployment measures. Set from the
 * local ffmpeg chains on an idle 2-core machine at SD (faithful about 3.5× realtime, enhanced
 * about 1×, Studio Max about 0.3× on clean SD), rounded up for probing, two-pass loudness and the
 * upload; a busy machine and grainy tape are slower (SD_SECONDS_PER_SECOND, docs/restore.md).
 */
export const RESTORE_DEFAULT_RUN_RATES: Readonly<Record<RestoreQuality, number>> = {
  faithful: 0.5,
  enhanced: 1.2,
  enhanced_max: 3.5,
};
