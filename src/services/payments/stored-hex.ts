/**
 * Hex values read back from text columns (payer, nonce, tx hash, refund address): written as
 * viem's Hex by the USDC top-up and refund, checked on the way out so a row edited by hand
 * fails here by its column's name instead of deep inside a chain call.
 */
import { type Hex, isHex } from "viem";

/** `value` as Hex; throws naming `column` when it is not 0x-prefixed hex. */
export function storedHex(value: string, column: string): Hex {
  if (!isHex(value)) throw new Error(`${column} holds ${JSON.stringify(value)}, not 0x hex`);
  return value;
}
