/**
 * Turns a prompt into the canonical text the prompt rule matches against.
 *
 * Two stages:
 * 1. `baseText`: NFKC, invisible characters removed, lowercase, accents stripped, look-alike
 *    letters from other scripts mapped to Latin. Digits are kept (ages are read here).
 * 2. `canonicalText`: tokens of a–z only, one space apart. Leetspeak is decoded inside tokens;
 *    words split by punctuation ("n.u.d.e", "nu-de") or spelled out one letter at a time
 *    ("n u d e") are joined; a final z is also read as s ("n00dz"). When a join or a decoding
 *    is ambiguous, the alternatives are
 *    appended after " | " so the matcher sees every reading while phrases never span them.
 *
 * Repeated letters are not collapsed here (that would turn "ass" into "as"); the matcher lets
 * each letter of a term match one or more times. Runs longer than three are cut to three to
 * keep matching linear.
 */
import { at } from "../../../domain/checked-index.js";

// Look-alikes NFKC leaves alone: Cyrillic, Greek, Armenian, Latin small capitals and a few
// Latin letters without a decomposition. Only letters that really pass for a Latin letter.
// biome-ignore format: a lookup table reads best packed
const CONFUSABLES: Record<string, string> = {
  а: "a", в: "b", г: "r", е: "e", и: "u", й: "u", і: "i", ї: "i", ј: "j", к: "k", м: "m",
  н: "h", о: "o", п: "n", р: "p", с: "c", т: "t", у: "y", х: "x", ш: "w", щ: "w", ъ: "b",
  ь: "b", ѕ: "s", һ: "h", ԁ: "d", ԛ: "q", ԝ: "w", ӏ: "l",
  α: "a", β: "b", γ: "y", δ: "d", ε: "e", η: "n", ι: "i", κ: "k", μ: "u", ν: "v", ο: "o",
  π: "n", ρ: "p", σ: "o", ς: "s", τ: "t", υ: "u", χ: "x", ω: "w",
  օ: "o", ս: "u", ց: "g", հ: "h", ո: "n",
  ᴀ: "a", ʙ: "b", ᴄ: "c", ᴅ: "d", ᴇ: "e", ɢ: "g", ʜ: "h", ɪ: "i", ᴊ: "j", ᴋ: "k", ʟ: "l",
  ᴍ: "m", ɴ: "n", ᴏ: "o", ᴘ: "p", ʀ: "r", ꜱ: "s", ᴛ: "t", ᴜ: "u", ᴠ: "v", ᴡ: "w", ʏ: "y",
  ᴢ: "z", ı: "i", ɩ: "i", ɑ: "a", ɡ: "g", ł: "l", ø: "o", đ: "d", ð: "d", ħ: "h", ŧ: "t",
  ß: "ss", æ: "ae", œ: "oe",
};
// One character class built from the table, so the mapping is a single replace pass.
const CONFUSABLE_RE = new RegExp(`[${Object.keys(CONFUSABLES).join("")}]`, "gu");

// Format characters (zero-width space/joiners, BOM, soft hyphen, tags) and Hangul fillers,
// which render as nothing and are used to split words invisibly.
const INVISIBLE_RE = /[\p{Cf}\u115F\u1160\u3164\uFFA0]/gu;
const MARKS_RE = /\p{M}/gu;
// Regional-indicator and negative squared/circled letters (🇳, 🅽, 🅝) have no NFKC form.
const LETTER_SYMBOL_RE = /[\u{1F1E6}-\u{1F1FF}\u{1F170}-\u{1F189}\u{1F150}-\u{1F169}]/gu;
const LETTER_SYMBOL_BASES = [0x1f1e6, 0x1f170, 0x1f150];

function letterFromSymbol(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  const base = LETTER_SYMBOL_BASES.find((b) => code >= b && code < b + 26) ?? code;
  return String.fromCharCode(97 + code - base);
}

/** Stage 1: script- and encoding-level normalisation; keeps digits and punctuation. */
export function baseText(prompt: string): string {
  return prompt
    .normalize("NFKC")
    .replace(INVISIBLE_RE, "")
    .replace(LETTER_SYMBOL_RE, letterFromSymbol)
    .toLowerCase()
    .normalize("NFD")
    .replace(MARKS_RE, "")
    .replace(CONFUSABLE_RE, (ch) => CONFUSABLES[ch] ?? ch);
}

// Characters that can be part of a word: letters, digits and the symbols used as letters.
const TOKEN_RE = /[a-z0-9@$!|+*€¢]+/g;
// biome-ignore format: a lookup table reads best packed
const LEET: Record<string, string> = {
  "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
  "@": "a", $: "s", "!": "i", "|": "l", "+": "t", "€": "e", "¢": "c",
};
// "1" and "|" stand for both i and l; the other reading is offered as an alternative.
const LEET_ALT: Record<string, string> = { "1": "l", "|": "i", "!": "l" };
const EDGE_PUNCT_RE = /^[!|+*]+|[!|+*]+$/g;
const LONG_RUN_RE = /([a-z])\1{3,}/g;
const VOWELS = ["a", "e", "i", "o", "u"];
const PLAIN_RE = /^[a-z]+$/;
const WHITESPACE_RE = /\s/;

interface Word {
  /** The main reading, a–z (or digits only for a pure number). */
  text: string;
  /** Other readings (alternative leet, a masked letter guessed). */
  alts: string[];
  /** For a one-character token: the letter it reads as ("3" → "e"). */
  letter?: string;
  /** True when the token stood alone, not glued to others by punctuation. */
  solo?: boolean;
}

function decodeLeet(raw: string, table: Record<string, string>): string {
  let out = "";
  for (const ch of raw) out += table[ch] ?? LEET[ch] ?? ch;
  return out;
}

// A plural or -s spelled with z ("n00dz", "nudez", "boobz"): read with s too.
const Z_PLURAL_RE = /(?<=[a-z]{2})z+$/;

/** Readings a spelling trick hides: the final z as s. */
function soundAlikes(text: string): string[] {
  return Z_PLURAL_RE.test(text) ? [text.replace(Z_PLURAL_RE, "s")] : [];
}

/** Reads one raw token; undefined when it was only punctuation. */
function readWord(raw: string): Word | undefined {
  const word = readSpelling(raw);
  if (word && word.letter === undefined) word.alts.push(...soundAlikes(word.text));
  return word;
}

/** One token's letters, leetspeak decoded (with its ambiguous alternatives). */
function readSpelling(raw: string): Word | undefined {
  // Fast path: most tokens are plain letters.
  if (PLAIN_RE.test(raw))
    return { text: raw, alts: [], letter: raw.length === 1 ? raw : undefined };
  const core = raw.replace(EDGE_PUNCT_RE, "");
  if (core === "") return undefined;
  if (!/[a-z]/.test(core)) {
    const digits = core.replace(/[^0-9]/g, "");
    if (digits === "") return undefined;
    return { text: digits, alts: [], letter: core.length === 1 ? LEET[core] : undefined };
  }
  const alts: string[] = [];
  if (/[1|!]/.test(core)) alts.push(decodeLeet(core, LEET_ALT).replaceAll("*", ""));
  // "*" either separates letters ("n*u*d*e") or masks one ("p*rn"): offer both readings.
  const stars = core.split("*").length - 1;
  if (stars > 0 && stars <= 2) {
    for (const v of VOWELS) alts.push(decodeLeet(core.replaceAll("*", v), {}));
  }
  const text = decodeLeet(core, {}).replaceAll("*", "");
  return { text, alts, letter: text.length === 1 ? text : undefined };
}

const letterOf = (w: Word | undefined) => w?.letter;
// "a" and "i" are English words, so a spelled-out run may start with one ("a n u d e").
const isWordLetter = (w: Word) => w.letter === "a" || w.letter === "i";
// A letter standing alone that is not a word itself: "s ex", "nud e".
const isLoneLetter = (w: Word) => w.solo === true && w.letter !== undefined && !isWordLetter(w);

/** Splits base text into groups: tokens joined by punctuation without whitespace. */
function groups(base: string): Word[][] {
  const out: Word[][] = [];
  let last = 0;
  for (const m of base.matchAll(TOKEN_RE)) {
    const word = readWord(m[0]);
    const glued = m.index > last && !WHITESPACE_RE.test(base.slice(last, m.index));
    last = m.index + m[0].length;
    if (!word) continue;
    const current = out.at(-1);
    if (current && glued) current.push(word);
    else out.push([word]);
  }
  return out;
}

/** One unit per group: "n.u.d.e" becomes "nude"; "nude-coloured" keeps both pieces. */
function unitsOf(groupList: Word[][], extras: string[]): Word[] {
  const units: Word[] = [];
  for (const group of groupList) {
    const first = at(group, 0);
    if (group.length === 1) {
      first.solo = true;
      units.push(first);
      continue;
    }
    if (group.every(letterOf)) {
      units.push({ text: group.map(letterOf).join(""), alts: [], solo: false });
      continue;
    }
    extras.push(group.map((w) => w.text).join(""));
    units.push(...group);
  }
  return units;
}

/** Joins letters spelled out with spaces ("n u d e") and lone letters next to a word. */
function joinSpelledOut(units: Word[], extras: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < units.length; i++) {
    let j = i;
    while (units[j]?.solo && letterOf(units[j])) j++;
    if (j - i >= 3) {
      const run = units.slice(i, j);
      const joined = run.map(letterOf).join("");
      out.push(joined);
      if (isWordLetter(at(run, 0))) extras.push(joined.slice(1));
      i = j - 1;
      continue;
    }
    const unit = at(units, i);
    const next = units[i + 1];
    if (next && (isLoneLetter(unit) || isLoneLetter(next))) {
      extras.push((unit.letter ?? unit.text) + (next.letter ?? next.text));
    }
    out.push(unit.text);
    extras.push(...unit.alts);
  }
  return out;
}

/** Stage 2: the canonical text, "main words | alternative readings". */
export function canonicalText(base: string): string {
  const extras: string[] = [];
  const words = joinSpelledOut(unitsOf(groups(base), extras), extras);
  const seen = new Set(words);
  const alt = [...new Set(extras)].filter((e) => e !== "" && !seen.has(e));
  const text = alt.length === 0 ? words.join(" ") : `${words.join(" ")} | ${alt.join(" ")}`;
  return text.replace(LONG_RUN_RE, "$1$1$1");
}
