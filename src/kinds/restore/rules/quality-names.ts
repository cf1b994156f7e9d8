/**
 * The names a person may type for a restore quality. Each quality has an API name
 * (`enhanced_max`) and a display label (`Studio Max`); people type either, in any case, with a
 * space, hyphen or underscore between words (`Studio Max`, `studio-max`, `STUDIO_MAX`). The
 * REST/MCP schema (kinds/restore/api/schemas.ts) and the client (`@kinora/client`'s restoreQualityFromName,
 * built from the labels the SDK generator copies from here) read them the same way.
 */
import { PRICE_TABLE, RESTORE_QUALITIES, type RestoreQuality } from "./pricing.js";

/** A quality name as typed, folded: trimmed, lower case, word separators one `_`. */
export function foldQualityName(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, "_");
}

const BY_NAME = new Map<string, RestoreQuality>(
  RESTORE_QUALITIES.flatMap((q) => [
    [foldQualityName(q), q],
    [foldQualityName(PRICE_TABLE[q].label), q],
  ]),
);

/** The quality an API name or display label names, in any case and spacing; else undefined. */
export function qualityFromName(text: string): RestoreQuality | undefined {
  return BY_NAME.get(foldQualityName(text));
}

/** Each quality's display label, by API name (what the SDK generator copies). */
// cast: Object.fromEntries over every RestoreQuality gives each one a label (TS types it Record<string, …>)
export const QUALITY_LABELS: Readonly<Record<RestoreQuality, string>> = Object.fromEntries(
  RESTORE_QUALITIES.map((q) => [q, PRICE_TABLE[q].label]),
) as Record<RestoreQuality, string>;

/** "faithful (Standard), enhanced (Enhanced) or enhanced_max (Studio Max)", for messages. */
export const QUALITY_CHOICES = RESTORE_QUALITIES.map((q) => `${q} (${PRICE_TABLE[q].label})`)
  .join(", ")
  .replace(/, ([^,]*)$/, " or $1");
