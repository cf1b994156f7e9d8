/** A preview names each quality as the price list does (a kind imports no other kind's rules). */
import { describe, expect, it } from "vitest";
import {
  PREVIEW_QUALITIES,
  PREVIEW_QUALITY_LABELS,
} from "../../src/kinds/preview/rules/transitions.js";
import { RESTORE_QUALITIES } from "../../src/kinds/restore/rules/pricing.js";
import { QUALITY_LABELS } from "../../src/kinds/restore/rules/quality-names.js";

describe("preview quality labels", () => {
  it("are the restore's qualities and labels", () => {
    expect([...PREVIEW_QUALITIES]).toEqual([...RESTORE_QUALITIES]);
    expect(PREVIEW_QUALITY_LABELS).toEqual(QUALITY_LABELS);
  });
});
