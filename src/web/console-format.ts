/** How the console writes money and times for people. */
import { displayCents } from "../domain/money.js";

/** Cents as the API's display strings: 299 → "$2.99". */
export const dollars = (cents: number) => displayCents(cents);

/** An ISO time to the minute, in UTC: "2026-11-25 21:49 UTC"; "—" for none. */
export const when = (iso: string | null) =>
  iso ? `${iso.replace("T", " ").slice(0, 16)} UTC` : "—";
