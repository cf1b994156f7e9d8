/** Formatting for people: dollars, sizes, lengths, ages and plain-text tables. */
import { formatCents } from "@kinora/client";
import { UsageError } from "./failures.js";

/** Cents as dollars, as the server shows them (the SDK's formatCents): 299 → "$2.99". */
export function dollars(cents: number): string {
  return formatCents(cents);
}

/** "20", "20.5", "$20.50" → 2050 cents; anything else is a usage error naming `what`. */
export function parseDollars(text: string, what: string): number {
  const match = /^\$?(\d{1,7})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) throw new UsageError(`${what} must be an amount in dollars, like 20 or 4.50.`);
  return Number(match[1]) * 100 + Number((match[2] ?? "0").padEnd(2, "0"));
}

/**
 * A signed amount in dollars → cents: "5", "5.00", "$5", "-2.50", "-$2.50" (a debit); zero is
 * refused. For the operator's adjustments, where a negative amount takes money away.
 */
export function parseSignedDollars(text: string, what: string): number {
  const trimmed = text.trim();
  const negative = trimmed.startsWith("-");
  const cents = parseDollars(negative ? trimmed.slice(1) : trimmed, what);
  if (cents === 0) throw new UsageError(`${what} must not be 0.`);
  return negative ? -cents : cents;
}

/** 1536 → "1.5 KB", decimal units as disks and networks count them. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** 95.2 → "1:35"; 3725 → "1:02:05". */
export function formatDuration(seconds: number): string {
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** An ISO timestamp as "5 s ago", "3 min ago", "2 h ago", "4 d ago". */
export function formatAge(iso: string, now = Date.now()): string {
  const sec = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (sec < 60) return `${sec} s ago`;
  if (sec < 3600) return `${Math.floor(sec / 60)} min ago`;
  if (sec < 86_400) return `${Math.floor(sec / 3600)} h ago`;
  return `${Math.floor(sec / 86_400)} d ago`;
}

/** Rows as aligned columns under a header; the last column is not padded. */
export function table(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  return all.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

/** "Label     value": the label padded so the values of several lines line up. */
export function labelled(label: string, value: string): string {
  return `${label.padEnd(9)} ${value}`;
}

/** Cuts text to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
