/** Money is integer US cents everywhere; this is the one place that makes display strings. */

function assertCents(value: number, field = "amount_cents"): number {
  if (!Number.isSafeInteger(value))
    throw new TypeError(`${field} must be an integer number of cents`);
  return value;
}

/** 299 → "$2.99"; -150 → "-$1.50". */
export function displayCents(cents: number): string {
  assertCents(cents);
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const dollars = Math.floor(abs / 100);
  const rest = String(abs % 100).padStart(2, "0");
  return `${sign}$${dollars.toLocaleString("en-US")}.${rest}`;
}
