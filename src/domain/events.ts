/**
 * What kinora reports about itself while it works: the observer seam between the code that
 * does things (routes, the job engine, the ledger, payments) and whatever watches them
 * (metrics today). Services call these plain methods; only composition decides who listens,
 * so no service imports a metrics library.
 */

/** A ledger entry kind, as written to ledger_entries.kind. */
type LedgerEntryKind = "charge" | "refund" | "topup" | "adjustment" | "payout";

/** What the services report for metrics and logs, without knowing who listens. */
export interface KinoraEvents {
  /** One HTTP request answered; `route` is the matched pattern (`/cloud/jobs/:id`), never the raw path. */
  httpRequest(e: { route: string; method: string; status: number; durationMs: number }): void;
  /** A request refused with 429 by the named rate rule. */
  rateLimited(e: { rule: string }): void;
  /** A ledger entry was written (its transaction may still roll back; see docs/operations.md). */
  ledgerEntry(e: { kind: LedgerEntryKind; amountCents: number }): void;
  /** A payment reached an outcome: provider stripe | test | usdc; outcome credited | held | failed… */
  paymentOutcome(e: { provider: string; outcome: string }): void;
  /** A worker claimed a job; `waitMs` from queued to the first claim (null on a retry). */
  jobClaimed(e: { kind: string; waitMs: number | null }): void;
  /** A claimed job ended (done, failed, refused); `runMs` from its first claim; `variant` is its quality or size. */
  jobFinished(e: { kind: string; status: string; variant: string; runMs: number | null }): void;
  /** A job went back to the queue for another attempt. */
  jobRetried(e: { kind: string; reason: "failed" | "lapsed" }): void;
  /** A worker's lease lapsed (it stopped heartbeating); the job was requeued or failed. */
  leaseLapsed(e: { kind: string; outcome: "requeued" | "failed" }): void;
  /** An operator ran the money reconciliation; `driftItems` = invariants that did not hold. */
  reconciled(e: { ok: boolean; driftItems: number; atMs: number }): void;
  /** A webhook attempt ended (delivered, retrying, failed for good) or disabled its endpoint. */
  webhookDelivery(e: { outcome: "delivered" | "retrying" | "failed" | "disabled" }): void;
  /** A segmented restore's work units were queued (its segments and sound, later its join). */
  restoreSegmentsQueued(e: { count: number }): void;
  /**
   * An upload in parts ended: completed, or aborted with its parts deleted (`reason`: expired,
   * job_ended, cancelled, failed); `parts`/`bytes` are what had arrived and was thrown away.
   */
  uploadInPartsEnded(e: {
    outcome: "completed" | "aborted";
    reason: string | null;
    parts: number;
    bytes: number;
  }): void;
}

/** A listener may watch any subset of the events. */
export type KinoraObserver = Partial<KinoraEvents>;

/** The events plus subscription; composition makes one per platform. */
export interface EventHub extends KinoraEvents {
  /** Adds a listener; returns its unsubscribe. */
  subscribe(observer: KinoraObserver): () => void;
}

/**
 * A fan-out hub. A listener that throws is ignored: watching must never break the request,
 * the charge or the job it watches. Each event is spelled out (not looped over names), so a new
 * event in KinoraEvents does not compile until the hub forwards it too.
 */
export function createEventHub(): EventHub {
  const observers = new Set<KinoraObserver>();
  const each = (tell: (o: KinoraObserver) => void) => {
    for (const o of observers) {
      try {
        tell(o);
      } catch {
        // See above: an observer's bug is not the caller's failure.
      }
    }
  };
  return {
    subscribe(observer) {
      observers.add(observer);
      return () => {
        observers.delete(observer);
      };
    },
    httpRequest: (e) => each((o) => o.httpRequest?.(e)),
    rateLimited: (e) => each((o) => o.rateLimited?.(e)),
    ledgerEntry: (e) => each((o) => o.ledgerEntry?.(e)),
    paymentOutcome: (e) => each((o) => o.paymentOutcome?.(e)),
    jobClaimed: (e) => each((o) => o.jobClaimed?.(e)),
    jobFinished: (e) => each((o) => o.jobFinished?.(e)),
    jobRetried: (e) => each((o) => o.jobRetried?.(e)),
    leaseLapsed: (e) => each((o) => o.leaseLapsed?.(e)),
    reconciled: (e) => each((o) => o.reconciled?.(e)),
    webhookDelivery: (e) => each((o) => o.webhookDelivery?.(e)),
    restoreSegmentsQueued: (e) => each((o) => o.restoreSegmentsQueued?.(e)),
    uploadInPartsEnded: (e) => each((o) => o.uploadInPartsEnded?.(e)),
  };
}
