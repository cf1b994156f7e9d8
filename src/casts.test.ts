/** Every cast and `any` in the shipped source says why: see scripts/check-casts.mjs. */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module script without type declarations
import { castFindings, checkCasts } from "../scripts/check-casts.mjs";

type Finding = { line: number; kind: "cast" | "any"; ok: boolean; where?: string };

const find = (text: string): Finding[] => castFindings(text);

describe("casts", () => {
  it("each cast and any of src/ and packages/*/src carries its reason", () => {
    const missing = (checkCasts() as Finding[]).filter((f) => !f.ok).map((f) => f.where);
    expect(missing).toEqual([]);
  });

  it("flags a cast and an any without a reason, and not `as const`", () => {
    const found = find(
      ["const a = b as string;", "let c: any;", "const d = [1] as const;"].join("\n"),
    );
    expect(found).toEqual([
      expect.objectContaining({ line: 1, kind: "cast", ok: false }),
      expect.objectContaining({ line: 2, kind: "any", ok: false }),
    ]);
  });

  it("takes the reason on the line, in the comments right above, or trailing the line before", () => {
    const found = find(
      [
        "const a = b as string; // cast: b is a string here",
        "// cast: the table is non-empty",
        "// biome-ignore lint/suspicious/noExplicitAny: see above",
        "let c: any;",
        "const e = ok",
        "  ? // cast: checked just above",
        "    (f as number)",
        "  : 0;",
      ].join("\n"),
    );
    expect(found.map((f) => f.ok)).toEqual([true, true, true]);
  });

  it("does not take a reason from further up, past code", () => {
    const found = find(
      ["// cast: about something else", "const x = 1;", "const y = z as T;"].join("\n"),
    );
    expect(found).toEqual([expect.objectContaining({ line: 3, ok: false })]);
  });
});
