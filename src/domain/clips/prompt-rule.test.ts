import { describe, expect, it } from "vitest";
import { ALLOWED, REFUSED } from "../../../test/fixtures/prompt-corpus.js";
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
