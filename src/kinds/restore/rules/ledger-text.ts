/**
 * How the ledger shows a restore's lines: lines written before restores named their quality by
 * label say `(enhanced_max, 95 s)`, and are shown with the label, as the jobs table names it.
 */
import { PRICE_TABLE, RESTORE_QUALITIES } from "./pricing.js";

const QUALITY_IN_REASON = new RegExp(`\\((${RESTORE_QUALITIES.join("|")}),`, "g");

/** `reason` with every quality key replaced by its label (`(enhanced_max,` → `(Studio Max,`). */
export const restoreLedgerText = (reason: string) =>
  reason.replace(
    QUALITY_IN_REASON,
    (_m, q: (typeof RESTORE_QUALITIES)[number]) => `(${PRICE_TABLE[q].label},`,
  );
