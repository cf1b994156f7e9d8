/**
 * What the server tells a connected assistant at `initialize`: ask before spending unless the
 * owner already agreed (real settings of the calling key, `ask_before_spending` and the
 * threshold `ask_above_cents`), each job
 * kind's flow step by step (the kind's own words), and what holds for every kind: the queue
 * estimate, refunds, cancelling and retention. Which tools spend, and which take a price cap,
 * is read from the served tools' contracts; the kinds from the server's list.
 */
import { displayCents } from "../domain/money.js";
import type { Principal } from "../services/auth.js";
import type { McpServices } from "./context.js";

/** A list of tool names in words: "a, b and c". */
function names(list: readonly string[]): string {
  return list.length <= 1 ? (list[0] ?? "") : `${list.slice(0, -1).join(", ")} and ${list.at(-1)}`;
}

function agreement(principal: Principal, services: McpServices): string {
  const key = principal.snapshot?.key;
  if (!key) return "";
  const contracts = services.operations.map((op) => op.contract).filter((c) => c.mcp);
  // cast: the contracts given here are the MCP tools', which all have an mcp binding
  const spending = contracts.filter((c) => c.policies?.spends).map((c) => c.mcp?.name as string);
  // cast: the contracts given here are the MCP tools', which all have an mcp binding
  const capped = names(contracts.filter((c) => c.price).map((c) => c.mcp?.name as string));
  const prices = services.operations.some((op) => op.contract.mcp?.name === "get_prices")
    ? " (get_prices)"
    : "";
  const remaining = Math.max(0, key.limitCents - key.spentCents);
  const balance = principal.snapshot?.balanceCents ?? 0;
  const left = `This key may still spend ${displayCents(Math.min(remaining, balance))} (limit ${displayCents(key.limitCents)}, ${displayCents(key.spentCents)} spent; wallet balance ${displayCents(balance)}).`;
  // The owner's threshold: purchases up to it need no yes, so the assistant is told where it is.
  const upTo =
    key.askAboveCents === null
      ? "The owner has NOT agreed in advance"
      : `Purchases of ${displayCents(key.askAboveCents)} or less spend without asking (still say what each cost). Above that the owner has NOT agreed in advance`;
  return key.askBeforeSpending
    ? `${upTo}: before every spending tool (${spending.join(", ")}), state the price${prices}. ${capped} spend only on the owner's own yes: a confirmation form this server sends to a client that supports elicitation, or else they answer agreement_required with approval_url — show the owner that link (they approve or decline on kinora), and when they say they approved, call the same tool with the same arguments again (it spends once). max_price_cents only caps the price; it is never the owner's yes. ${left}`
    : `The owner has agreed in advance to spending within this key's limit without being asked each time; still state what each purchase cost afterwards. max_price_cents on ${capped} refuses anything dearer than the owner expects. ${left}`;
}

/** The instructions for this caller: the general rules, then each kind's flow. */
export function instructionsFor(principal: Principal, services: McpServices): string {
  const kinds = services.kinds;
  const plurals = names(kinds.map((k) => k.plural));
  return [
    "kinora runs paid jobs in the cloud, paid from a prepaid wallet in US cents.",
    agreement(principal, services),
    ...kinds.map((k) => k.instructions),
    "While a job waits or runs, its `queue` field gives position (0 = running now) and eta_seconds, an estimate from recent run times: tell the owner how long it should take instead of polling blindly.",
    `Failed, refused and cancelled jobs are refunded at once, to the balance and this key's allowance. cancel_job cancels ${plurals} whose file never arrived, and a restore even while it runs. Uploaded files and results are deleted automatically (typically within 48 hours): download results promptly.`,
    "When the balance does not cover a price (needs_topup), create_top_up_link gives the owner a card checkout link; top_up_with_usdc pays in USDC over x402. When this key's limit does not cover it (over_limit), only the owner can raise it.",
  ]
    .filter(Boolean)
    .join("\n\n");
}
