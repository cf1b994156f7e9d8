/** How the console writes money and times for people. */
import { displayCents } from "../domain/money.js";

/** Cents as the API's display strings: 299 → "$2.99". */
export const dollars = (cents: number) => displayCents(cents);

/** An ISO time to the minute, in UTC: "2026-11-25 21:49 UTC"; "—" for none. */
export const when = (iso: string | null) =>
  iso ? `${iso.replace("T", " ").slice(0, 16)} UTC` : "—";

/**
 * The server's queue estimate in words, as the `kinora` client words the same `eta_seconds`
 * (without its "left"): "about 45s", "about 2m 25s", "about 1h 05m". Both read the one field
 * from the one estimator, so the console and the client show the same figure.
 */
export function etaWords(seconds: number): string {
  const s = Math.max(1, Math.round(seconds));
  if (s < 60) return `about ${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `about ${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `about ${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}
