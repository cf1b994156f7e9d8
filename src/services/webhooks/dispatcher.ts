/**
 * The delivery loop a node runs (any API node, or several): it claims due deliveries one at a
 * time while it has free slots (`concurrency` in all, `perEndpoint` per receiver URL), sends
 * each in the background, and wakes on the outbox's NOTIFY, when an attempt ends, and at least
 * every `pollMs` (a missed notification, a retry coming due). stop() stops claiming and waits
 * for the attempts in flight (each ends within its time-out).
 */
import type { Logger } from "../../logger.js";
import type { BackgroundTask } from "../deps.js";
import { claimDelivery } from "./attempts.js";
import { type DeliverDeps, deliverClaimed } from "./deliver.js";

export interface DispatcherOptions {
  concurrency: number;
  perEndpoint: number;
  leaseMs: number;
  pollMs: number;
  /** Subscribes to the outbox's wake-ups; returns the unsubscribe. */
  listen?: (wake: () => void) => Promise<() => Promise<void>>;
}

export async function startDispatcher(
  deps: DeliverDeps & { log: Logger },
  opts: DispatcherOptions,
): Promise<BackgroundTask> {
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let total = 0;
  let stopped = false;
  let pumping = false;
  let again = false;

  const busyUrls = () => [...inFlight].filter(([, n]) => n >= opts.perEndpoint).map(([u]) => u);

  const send = (row: NonNullable<Awaited<ReturnType<typeof claimDelivery>>>) => {
    total++;
    inFlight.set(row.url, (inFlight.get(row.url) ?? 0) + 1);
    const p: Promise<void> = deliverClaimed(deps, row)
      .then(() => {})
      .catch((err) => deps.log.error("webhook delivery failed", { err, delivery_id: row.id }))
      .finally(() => {
        total--;
        const left = (inFlight.get(row.url) ?? 1) - 1;
        if (left > 0) inFlight.set(row.url, left);
        else inFlight.delete(row.url);
        running.delete(p);
        wake();
      });
    running.add(p);
  };

  async function pump() {
    while (!stopped && total < opts.concurrency) {
      const row = await claimDelivery(deps.db, deps.clock(), {
        node: deps.node,
        leaseMs: opts.leaseMs,
        perEndpoint: opts.perEndpoint,
        busyUrls: busyUrls(),
      });
      if (!row) return;
      send(row);
    }
  }

  function wake() {
    if (stopped) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    pump()
      .catch((err) => deps.log.error("webhook claim failed", { err }))
      .finally(() => {
        pumping = false;
        if (again) {
          again = false;
          wake();
        }
      });
  }

  const unlisten = opts.listen ? await opts.listen(wake) : async () => {};
  const timer = setInterval(wake, opts.pollMs);
  timer.unref();
  wake();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await unlisten();
      while (pumping) await new Promise((r) => setTimeout(r, 10));
      await Promise.all([...running]);
    },
  };
}
