/** Restore qualities as people type them: the API name or the display label, any case. */
import { RESTORE_QUALITY_LABELS, type RestoreQuality } from "./generated.js";

/** A quality name as typed, folded: trimmed, lower case, word separators one `_`. */
const fold = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, "_");

const BY_NAME = new Map<string, RestoreQuality>(
  // cast: Object.entries of the generated label table is exactly its qualities (TS types keys as string)
  (Object.entries(RESTORE_QUALITY_LABELS) as [RestoreQuality, string][]).flatMap(([q, label]) => [
    [fold(q), q],
    [fold(label), q],
  ]),
);

/**
 * The quality a name means — `"Studio Max"`, `"studio-max"`, `"STUDIO_MAX"` and
 * `"enhanced_max"` all mean `enhanced_max` — or undefined. The server reads names the same way,
 * so what a person typed can be sent as it is; this is for checking it before a call.
 */
export function restoreQualityFromName(text: string): RestoreQuality | undefined {
  return BY_NAME.get(fold(text));
}
