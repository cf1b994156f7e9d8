/**
 * Restore qualities on the command line: the names a person types (`standard`, `enhanced`,
 * `studio-max`, or the API names, any case — read by the SDK exactly as the server reads them)
 * and the price table `kinora restore --help` shows, asked of the server so it never drifts
 * from what will be charged.
 */
import {
  RESTORE_QUALITY_LABELS,
  type RestoreQuality,
  restoreQualityFromName,
} from "@kinora/client";
import type { ClientContext } from "../command.js";
import { UsageError } from "../failures.js";

/** The quality used when none is asked for (the server's default too). */
const DEFAULT_QUALITY: RestoreQuality = "enhanced";

// cast: Object.keys of the generated label table is exactly its qualities (TS types keys as string)
const QUALITIES = Object.keys(RESTORE_QUALITY_LABELS) as RestoreQuality[];

/** The name the client shows for a quality: its display label as one word, `studio-max`. */
export function cliQualityName(q: RestoreQuality): string {
  return RESTORE_QUALITY_LABELS[q].toLowerCase().replace(/\s+/g, "-");
}

/** "standard, enhanced or studio-max". */
export const QUALITY_NAMES = QUALITIES.map(cliQualityName)
  .join(", ")
  .replace(/, ([^,]*)$/, " or $1");

/** `--quality` as typed (default enhanced): a display name or API name, any case. */
export function parseQuality(typed: string | undefined): RestoreQuality {
  if (typed === undefined) return DEFAULT_QUALITY;
  const quality = restoreQualityFromName(typed);
  if (!quality) {
    throw new UsageError(
      `--quality must be ${QUALITY_NAMES} (the API names ${QUALITIES.join(", ")} work too, in any case); "${typed}" is none of them.`,
    );
  }
  return quality;
}

/** One row of GET /cloud/prices' `qualities` (the price table view); only what is shown. */
interface PriceRow {
  quality: RestoreQuality;
  label: string;
  base_display: string;
  per_extra_minute_display: string;
  /** What the quality does, in customer words (servers before it said nothing). */
  does?: string;
  /** "about 40 minutes on a 2-core server; …": how long an hour of SD video takes. */
  hour_of_sd_takes?: string;
}

interface PriceTable {
  included_minutes: number;
  high_res?: { rule?: string };
  qualities: PriceRow[];
}

function isPriceTable(value: unknown): value is PriceTable {
  // cast: a server's price table read leniently: each field is checked with typeof before use
  const t = value as PriceTable | null;
  return (
    typeof t?.included_minutes === "number" &&
    Array.isArray(t.qualities) &&
    t.qualities.every(
      (r) =>
        typeof r?.quality === "string" &&
        typeof r.base_display === "string" &&
        typeof r.per_extra_minute_display === "string",
    )
  );
}

const isDefault = (q: RestoreQuality) => (q === DEFAULT_QUALITY ? "  (default)" : "");

/** `text` in lines of at most `width` characters, each starting with `indent`. */
function wrap(text: string, indent: string, width = 78): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

/** What a quality does and how long an hour takes, under its price line (when the server says). */
function qualityDescription(r: PriceRow): string[] {
  const hour = r.hour_of_sd_takes ? ` An hour of SD video takes ${r.hour_of_sd_takes}` : "";
  return r.does || hour ? wrap(`${r.does ?? ""}${hour}`, "      ") : [];
}

/** The qualities with the server's prices, for the help text. */
export async function qualityPriceLines(ctx: ClientContext): Promise<string[]> {
  const table: unknown = await ctx.api.call("getRestorePrices", {});
  if (!isPriceTable(table)) throw new Error("the server's price table has another shape");
  const width = Math.max(...table.qualities.map((r) => cliQualityName(r.quality).length));
  return [
    `Qualities and prices on ${ctx.api.server} (the first figure covers up to`,
    `${table.included_minutes} minutes of video; each started minute after that costs the second):`,
    ...table.qualities.flatMap((r) => [
      `  ${cliQualityName(r.quality).padEnd(width)}  ${r.base_display}, then ${r.per_extra_minute_display}/min${isDefault(r.quality)}`,
      ...qualityDescription(r),
    ]),
    ...(table.high_res?.rule ? [`  ${table.high_res.rule}`] : []),
    "The exact price of each video is shown before you agree to it.",
  ];
}

/** The qualities without prices, when the server cannot be asked. */
export function qualityLinesOffline(): string[] {
  return [
    `Qualities: ${QUALITIES.map((q) => `${cliQualityName(q)}${isDefault(q) ? " (default)" : ""}`).join(", ")}.`,
    "Prices: the server did not answer. They are the server's own: see them with",
    "kinora restore --help --server URL once it answers, or at URL/cloud/prices. The exact",
    "price of each video is shown before you agree to it.",
  ];
}
