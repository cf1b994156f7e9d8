/**
 * What a customer can say of a tape's levels, for restores and their previews, in the words
 * every surface uses (REST, MCP, the client's generated FADE_HINTS and so the CLI's --fade) and
 * the engine's plan obeys. The console does not ask it (its preview shows the stills to judge by).
 * Why it exists: a light fade (Video8's, say: luma 16–235 lifted to 28–215) reads like a clean
 * scene of low contrast, and no reading of the picture alone told them apart on the quality
 * bench's tuning set (docs/restore.md, "The customer's fade hint"); the customer knows the tape.
 */

/** auto: the analysis decides; faded / not_faded: the customer says. */
export const FADE_HINTS = ["auto", "faded", "not_faded"] as const;
/** One of FADE_HINTS. */
export type FadeHint = (typeof FADE_HINTS)[number];

/** The default: the analysis decides whether the picture has faded. */
export const DEFAULT_FADE_HINT: FadeHint = "auto";

/**
 * What each answer does, for a field's description: short, since an assistant reads every
 * tool's inputs before its first call (test/mcp/tools-size.test.ts); docs/restore.md says more.
 */
export const FADE_HINT_MEANING =
  "Has the tape faded? auto: the analysis decides; faded: correct the levels even if none is found (light fades look clean); not_faded: keep them (fog, night). Not for Standard.";
