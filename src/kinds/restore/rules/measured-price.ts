/**
 * A restore is charged for its declared length when it is created, and for its measured length
 * once the worker has measured the file — when that prices lower. A longer measured length never
 * costs more: within the tolerance it is charged as declared, beyond it the job is refused and
 * refunded (limits.ts `tooLong`).
 */
import { displayCents } from "../../../domain/money.js";
import { type PriceInput, priceRestore } from "./pricing.js";

interface MeasuredPriceInput extends Omit<PriceInput, "durationSec"> {
  /** What was charged for the declared length. */
  chargedCents: number;
  measuredSec: number;
}

interface MeasuredPrice {
  /** What the job costs now: the lower of the charge and the measured length's price. */
  amountCents: number;
  /** What goes back to the payer: the charge less amountCents (0 when nothing changes). */
  backCents: number;
}

/**
 * What a restore costs once its length is measured, and how much goes back (never more is
 * charged).
 */
export function measuredPrice(input: MeasuredPriceInput): MeasuredPrice {
  const { chargedCents, measuredSec, ...rest } = input;
  const measured = priceRestore({ ...rest, durationSec: measuredSec }).amountCents;
  const amountCents = Math.min(chargedCents, measured);
  return { amountCents, backCents: chargedCents - amountCents };
}

/** The ledger reason (and card refund reason) of a part given back at measurement. */
export function measuredRefundReason(
  jobId: string,
  measuredSec: number,
  declaredSec: number,
  price: MeasuredPrice,
): string {
  const fmt = (sec: number) =>
    `${Math.floor(sec / 60)}:${String(Math.round(sec % 60)).padStart(2, "0")}`;
  return `restore ${jobId} measured ${fmt(measuredSec)} long (declared ${fmt(declaredSec)}): priced ${displayCents(price.amountCents)}, ${displayCents(price.backCents)} back`;
}
