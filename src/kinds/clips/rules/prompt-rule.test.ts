import { describe, expect, it } from "vitest";
import { ALLOWED, REFUSED } from "../../../../test/fixtures/prompt-corpus.js";
import { checkPrompt, normalisePrompt, REFUSAL_CODES } from "./prompt-rule.js";

describe("checkPrompt corpus", () => {
  it.each(REFUSED.map((c) => [c.prompt, c.code] as const))("refuses %j as %s", (prompt, code) => {
    expect(checkPrompt(prompt)).toMatchObject({ allowed: false, code });
  });

  it.each(ALLOWED.map((p) => [p]))("allows %j", (prompt) => {
    expect(checkPrompt(prompt)).toEqual({ allowed: true });
  });

  it("keeps a corpus of at least 60 refused and 60 allowed prompts", () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(60);
    expect(ALLOWED.length).toBeGreaterThanOrEqual(60);
  });
});

/**
 * Spelling tricks on words the rule blocks — digits for letters, repeated letters, separators,
 * homoglyphs, z for s — each beside a near miss that must stay allowed.
 */
const TRICKS: readonly [trick: string, code: string, nearMiss: string][] = [
  ["n00dz on the b3ach", "nudity", "n00dles on the beach"],
  ["nudez at the lake", "nudity", "a quiz at the lake"],
  ["n00des in the rain", "nudity", "noodles in the rain"],
  ["nооdes", "nudity", "a jazz trio"], // Cyrillic о
  ["n.u.d.e portrait", "nudity", "a nude-coloured dress"],
  ["n u u u d e woman", "nudity", "a nun at dawn"],
  ["nekkid dancer", "nudity", "a necked bottle"],
  ["nakd woman", "nudity", "a naked eye view of the stars"],
  ["b00bz", "nudity", "a booby bird on a cliff"],
  ["s-e-x on a boat", "sexual", "six boats at sea"],
  ["5 3 x scene", "sexual", "a 5 3 2 formation"],
  ["p*rn clip", "sexual", "a pawn on a chessboard"],
  ["s3xx", "sexual", "sussex downs in spring"],
  ["p0rnz", "sexual", "prawns on a plate"],
];

describe("checkPrompt against spelling tricks", () => {
  it.each(TRICKS)("refuses %j as %s, allows its near miss %j", (trick, code, nearMiss) => {
    expect(checkPrompt(trick)).toMatchObject({ allowed: false, code });
    expect(checkPrompt(nearMiss)).toEqual({ allowed: true });
  });
});

describe("checkPrompt details", () => {
  it("explains the refusal in one sentence without echoing the prompt", () => {
    const verdict = checkPrompt("a nude woman on a beach");
    if (verdict.allowed) throw new Error("expected a refusal");
    expect(verdict.detail).toMatch(/^The prompt .*\.$/);
    expect(verdict.detail).not.toContain("woman");
    expect(Object.keys(REFUSAL_CODES)).toContain(verdict.code);
  });
});

describe("normalisePrompt", () => {
  it.each([
    ["Ｎ.Ｕ.Ｄ.Ｅ", "nude"],
    ["n u d e", "nude"],
    ["nüde", "nude"],
    ["n\u200Bu\u00ADd\uFEFFe", "nude"],
    ["nаkеd", "naked"], // Cyrillic а, е
    ["ɴᴜᴅᴇ", "nude"],
    ["p0rn", "porn"],
    ["$3x", "sex"],
    ["  A   lake,  at dawn! ", "a lake at dawn"],
    ["nuuuuuuude", "nuuude"],
  ])("reads %j as %j", (input, expected) => {
    expect(normalisePrompt(input)).toBe(expected);
  });

  it("offers ambiguous readings after a bar", () => {
    expect(normalisePrompt("h3nta1")).toBe("hentai | hental");
    expect(normalisePrompt("nu-de shoes")).toBe("nu de shoes | nude");
  });
});
