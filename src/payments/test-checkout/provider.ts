/**
 * The built-in test checkout: a CheckoutProvider whose "hosted page" is kinora's own
 * /checkout/{id} page, clearly marked TEST MODE. No money moves; paying on the page goes
 * through the same completeCheckout path a Stripe webhook does. Refunds are recorded in
 * test_checkout_refunds, idempotently, like a provider would.
 */
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { Signer } from "../../signing.js";
import type {
  CheckoutProvider,
  CheckoutSession,
  CreateSessionInput,
  RefundInput,
  RefundResult,
} from "../checkout/provider.js";

interface TestCheckoutOptions {
  db: Kysely<DB>;
  /** Read per call: the public URL may be known only after the server listens. */
  publicUrl: () => string;
  newId: () => string;
}

/** The built-in test checkout: a local page that pays with a click, no money taken. */
export function createTestCheckoutProvider(opts: TestCheckoutOptions): CheckoutProvider {
  return {
    kind: "test",
    pageOrigin: () => new URL(opts.publicUrl()).origin,
    async createSession(input: CreateSessionInput): Promise<CheckoutSession> {
      return {
        providerSessionId: `test_${input.reference}`,
        url: `${opts.publicUrl()}/checkout/${encodeURIComponent(input.reference)}`,
        expiresAt: input.expiresAt ?? null,
      };
    },
    async refund(input: RefundInput): Promise<RefundResult> {
      const db = opts.db;
      await db
        .insertInto("test_checkout_refunds")
        .values({
          idempotency_key: input.idempotencyKey,
          id: opts.newId(),
          provider_payment_id: input.providerPaymentId,
          amount_cents: input.amountCents,
          reason: input.reason,
        })
        .onConflict((oc) => oc.column("idempotency_key").doNothing())
        .execute();
      const row = await db
        .selectFrom("test_checkout_refunds")
        .select("id")
        .where("idempotency_key", "=", input.idempotencyKey)
        .executeTakeFirstOrThrow();
      return { refundId: row.id, status: "succeeded" };
    },
  };
}

const PAGE_PURPOSE = "test-checkout-page";
const PAGE_TOKEN_TTL_MS = 24 * 3600_000;

/**
 * The per-checkout token the Pay and Cancel forms carry, signed for this checkout id
 * (src/signing.ts), so a form posted from another site (which never saw the page) cannot pay
 * or cancel. It outlives the page by a day; the checkout's own expiry is checked separately.
 */
export function checkoutPageToken(signer: Signer, checkoutId: string, nowMs: number): string {
  return signer.sign(PAGE_PURPOSE, { c: checkoutId }, nowMs + PAGE_TOKEN_TTL_MS);
}

/** Whether a test-checkout page form was signed for this checkout. */
export function checkPageToken(
  signer: Signer,
  checkoutId: string,
  token: string,
  nowMs: number,
): boolean {
  return signer.verify<{ c?: unknown }>(PAGE_PURPOSE, token, nowMs)?.c === checkoutId;
}
