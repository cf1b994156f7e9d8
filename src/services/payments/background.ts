/**
 * The payments background task (Feature.start): expires stale checkouts, sends queued card
 * refunds and confirms pending USDC payments, every `pollMs`. Each pass is safe to run on
 * several nodes at once: every effect is a conditional update or an idempotent provider call.
 */
import type { BackgroundTask } from "../deps.js";
import { startPeriodic } from "../periodic.js";
import { processCardRefunds, refundExtraPayments } from "./card-refunds.js";
import { expireCheckouts } from "./checkouts.js";
import type { PaymentsDeps } from "./deps.js";
import { confirmUsdcPayments } from "./usdc.js";

/** One pass of the payment tasks: expire checkouts, process refunds, confirm USDC. */
export async function runPaymentTasksOnce(deps: PaymentsDeps) {
  const expired = await expireCheckouts(deps);
  const refunds = (await processCardRefunds(deps)) + (await refundExtraPayments(deps));
  const usdc = await confirmUsdcPayments(deps);
  return { expired, refunds, usdc };
}

/** The payment tasks every `pollMs`, until stopped. */
export function startPaymentTasks(deps: PaymentsDeps, pollMs: number): BackgroundTask {
  const pass = async () => {
    await runPaymentTasksOnce(deps);
  };
  return startPeriodic(pollMs, pass, deps.platform.log, "payments background pass");
}
