/**
 * The clip content rule applied to prompts: no sexual or nude content, and nothing sexual or
 * suggestive involving a minor.
 *
 * How a prompt is judged:
 * 1. It is normalised (prompt-normalise.ts): accents, look-alike letters, leetspeak, invisible
 *    characters and spelled-out words are undone.
 * 2. Ages under 18 ("15 year old", "15yo", "aged twelve") are read from the digits.
 * 3. Innocent phrases ("nude shoes", "the naked eye", "Sussex") are blanked out.
 * 4. Terms (prompt-terms.ts) are matched per category: single words as whole tokens or as
 *    complete glued compounds, phrases at word boundaries, a few unambiguous stems anywhere.
 * 5. A minor together with anything sexual, nude or suggestive is `minor_safety`, which wins;
 *    then `sexual`, then `nudity`. Suggestive terms alone are allowed (adults).
 *
 * All regular expressions are compiled once at module load.
 */
import { at as elementAt } from "../../../domain/checked-index.js";
import { baseText, canonicalText } from "./prompt-normalise.js";
import {
  COMPANIONS,
  INNOCENT_PHRASES,
  MINOR,
  MINOR_SEXUAL,
  NUDITY,
  SEXUAL,
  SUGGESTIVE,
  type TermList,
} from "./prompt-terms.js";

/**
 * Content-rule refusal codes (the `refused` field of a 422 and of a refused clip).
 * - `sexual`: sexual acts, pornography, explicit sexual language (prompts and images).
 * - `nudity`: nude or near-nude people, exposed intimate parts (prompts and images).
 * - `minor_safety`: a child or teenager together with anything sexual, nude or suggestive.
 */
export type RefusalCode = "sexual" | "nudity" | "minor_safety";

type PromptVerdict = { allowed: true } | { allowed: false; code: RefusalCode; detail: string };

/** Code → description, for the README and GET /motion/config. */
export const REFUSAL_CODES: Record<RefusalCode, string> = {
  sexual:
    "Sexual content: sex acts, pornography or explicit sexual language, in the prompt or the image.",
  nudity:
    "Nude or near-nude content: naked people or exposed intimate parts, in the prompt or the image.",
  minor_safety:
    "A child or teenager together with anything sexual, nude or suggestive. Takes precedence over the other codes.",
};

/** One user-facing sentence per code; never repeats the prompt's words back. */
const DETAILS: Record<RefusalCode, string> = {
  sexual:
    "The prompt asks for sexual content, which clips do not allow; describe a scene without it.",
  nudity:
    "The prompt asks for nude content, which clips do not allow; describe a scene without nudity.",
  minor_safety:
    "The prompt puts a child or teenager together with sexual, nude or suggestive content, which clips never allow; describe a scene that does not sexualise anyone.",
};

// Category bits; a prompt's findings are OR-ed together.
const SEX = 1;
const NUDE = 2;
const SUGGEST = 4;
const MINOR_BIT = 8;
const MINOR_SEX = 16;

/**
 * Pattern mini-syntax → regex source: every letter may repeat ("nuuude"), groups don't capture
 * and try their longest alternative first ("nudes" before "nude").
 */
function stretch(pattern: string): string {
  return pattern
    .replace(/\(([^()]*)\)/g, (_, inner: string) => {
      const sorted = inner.split("|").sort((a, b) => b.length - a.length);
      return `(${sorted.join("|")})`;
    })
    .replace(/[a-z]/g, "$&+")
    .replaceAll("(", "(?:");
}

// Longest first, so a phrase alternation prefers the fuller reading.
function alternation(patterns: readonly string[]): string {
  return [...patterns]
    .sort((a, b) => b.length - a.length)
    .map(stretch)
    .join("|");
}

// `\b` is a letter boundary here: canonical tokens are all letters or all digits.
const bounded = (patterns: readonly string[], flags = "") =>
  new RegExp(`\\b(?:${alternation(patterns)})\\b`, flags);

const LISTS: readonly [TermList, number][] = [
  [SEXUAL, SEX],
  [NUDITY, NUDE],
  [SUGGESTIVE, SUGGEST],
  [MINOR, MINOR_BIT],
  [MINOR_SEXUAL, MINOR_SEX],
];

/**
 * Phrases (at word boundaries) and stems (anywhere) of every category in one regex, one
 * capture group per category and kind, so the text is scanned once.
 */
function phraseScanner(): { re: RegExp; bits: number[] } {
  const parts: string[] = [];
  const bits: number[] = [];
  for (const [list, bit] of LISTS) {
    if (list.phrases.length) {
      parts.push(`\\b(${alternation(list.phrases)})\\b`);
      bits.push(bit);
    }
    if (list.anywhere.length) {
      parts.push(`(${alternation(list.anywhere)})`);
      bits.push(bit);
    }
  }
  return { re: new RegExp(parts.join("|"), "g"), bits };
}
const PHRASES = phraseScanner();

/** One word, tried at a position of a token while splitting glued compounds. */
interface Segmenter {
  /** Sticky, greedy: where does the word end if it starts here? */
  part: RegExp;
  /** Sticky, anchored at the end: does the rest of the token read as this word? */
  rest: RegExp;
  bit: number;
}

// Bucketed by first letter: a position only tries the words that can start there. One regex
// per word (not one per category) because an alternation reports only one end ("sext" would
// hide "sex" in "sextape").
const SEGMENTERS = new Map<string, Segmenter[]>();
function addSegmenters(words: readonly string[], bit: number): void {
  for (const word of words) {
    const source = stretch(word);
    const bucket = SEGMENTERS.get(word.charAt(0)) ?? [];
    bucket.push({ part: new RegExp(source, "y"), rest: new RegExp(`(?:${source})$`, "y"), bit });
    SEGMENTERS.set(word.charAt(0), bucket);
  }
}
addSegmenters(SEXUAL.words, SEX);
addSegmenters(NUDITY.words, NUDE);
addSegmenters(SUGGESTIVE.words, SUGGEST);
addSegmenters(MINOR.words, MINOR_BIT);
addSegmenters(MINOR_SEXUAL.words, MINOR_SEX);
addSegmenters(COMPANIONS, 0);

// Cheap pre-check: a token can only split into terms if it starts with the literal stem of a
// word or companion. Compared with repeated letters squeezed out, on both sides.
const squeeze = (s: string) => s.replace(/([a-z])\1+/g, "$1");
const STEMS = new Set(
  [...LISTS.flatMap(([list]) => list.words), ...COMPANIONS].map((w) =>
    squeeze(w.split("(")[0] ?? w),
  ),
);
const STEM_LENGTHS = [...new Set([...STEMS].map((s) => s.length))].sort((a, b) => a - b);

function mayStartWithTerm(token: string): boolean {
  const head = squeeze(token.slice(0, 24));
  for (const length of STEM_LENGTHS) {
    if (length > head.length) return false;
    if (STEMS.has(head.slice(0, length))) return true;
  }
  return false;
}

const INNOCENT_RE = bounded(INNOCENT_PHRASES, "g");

// Read on the base text, where digits are still digits.
const UNDER_18 = "(?:1[0-7]|[0-9])(?:\\.[0-9])?";
const NUMBER_WORDS =
  "(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen)";
// Separators written so each space can be consumed one way only ("\s*-?\s*" would backtrack
// quadratically on a long run of spaces).
const DASH = "\\s*(?:-\\s*)?";
const COLON = "\\s*(?::\\s*)?";
const AGE_RE = new RegExp(
  [
    `(?<![0-9.])${UNDER_18}${DASH}(?:years?|yrs?)${DASH}old`,
    `(?<![0-9.])${UNDER_18}\\s*(?:yo|y/o|y\\.o)(?![a-z])`,
    `(?<![a-z])aged?${COLON}${UNDER_18}(?![0-9])`,
    `(?<![0-9.])[0-9]{1,2}${DASH}(?:months?|weeks?|days?)${DASH}old`,
    `(?<![a-z])${NUMBER_WORDS}${DASH}(?:years?|yrs?)${DASH}old`,
    `(?<![a-z])aged?${COLON}${NUMBER_WORDS}(?![a-z])`,
  ].join("|"),
);
const RULE_34_RE = new RegExp(`(?<![a-z])rule${DASH}34(?![0-9])`);
const BARELY_18_RE = /(?<![a-z])barely\s*18(?![0-9])/;

/**
 * Longest glued token we try to split: above the API's 800-character prompt limit, so any
 * token of a real prompt is split; longer ones only meet the anywhere-stems.
 */
const MAX_SPLIT_CHARS = 1000;

/**
 * Splits a token into companions and terms ("hotnudegirls" → hot|nude|girls). Returns the
 * category bits of the terms when the whole token splits, else 0.
 */
function splitMask(token: string): number {
  const end = token.length;
  const reach = new Array<number>(end + 1).fill(-1);
  reach[0] = 0;
  const mark = (at: number, bits: number) => {
    reach[at] = Math.max(elementAt(reach, at), 0) | bits;
  };
  for (let at = 0; at < end; at++) {
    const before = elementAt(reach, at);
    if (before < 0) continue;
    for (const { part, rest, bit } of SEGMENTERS.get(token.charAt(at)) ?? []) {
      rest.lastIndex = at;
      if (rest.test(token)) mark(end, before | bit);
      part.lastIndex = at;
      if (part.test(token) && part.lastIndex < end) mark(part.lastIndex, before | bit);
    }
  }
  return Math.max(elementAt(reach, end), 0);
}

function digitFindings(base: string): number {
  let bits = 0;
  if (AGE_RE.test(base)) bits |= MINOR_BIT;
  if (RULE_34_RE.test(base)) bits |= SEX;
  if (BARELY_18_RE.test(base)) bits |= MINOR_SEX;
  return bits;
}

function termFindings(text: string): number {
  let bits = 0;
  const scan = PHRASES.re;
  scan.lastIndex = 0;
  for (let m = scan.exec(text); m; m = scan.exec(text)) {
    const group = m.findIndex((g, i) => i > 0 && g !== undefined);
    bits |= PHRASES.bits[group - 1] ?? 0;
    // Resume one character on, not after the match: phrases of two categories may overlap.
    scan.lastIndex = m.index + 1;
  }
  for (const token of new Set(text.split(/[ |]+/))) {
    if (token.length <= MAX_SPLIT_CHARS && mayStartWithTerm(token)) bits |= splitMask(token);
  }
  return bits;
}

function verdictFor(bits: number): PromptVerdict {
  const minorInvolved = bits & MINOR_BIT && bits & (SEX | NUDE | SUGGEST);
  const code: RefusalCode | undefined =
    bits & MINOR_SEX || minorInvolved
      ? "minor_safety"
      : bits & SEX
        ? "sexual"
        : bits & NUDE
          ? "nudity"
          : undefined;
  return code ? { allowed: false, code, detail: DETAILS[code] } : { allowed: true };
}

/**
 * The text the rule matches: lowercase a–z words one space apart, with alternative readings
 * after " | ". Exported for tests.
 */
export function normalisePrompt(prompt: string): string {
  return canonicalText(baseText(prompt));
}

/** Judges a clip prompt against the content rule. Pure and synchronous. */
export function checkPrompt(prompt: string): PromptVerdict {
  const base = baseText(prompt);
  const text = canonicalText(base).replace(INNOCENT_RE, " ");
  return verdictFor(digitFindings(base) | termFindings(text));
}
