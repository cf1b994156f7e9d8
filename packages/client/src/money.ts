/** Money as the server shows it: integer US cents in every field, dollars only for people. */

/** 299 → "$2.99"; 123456 → "$1,234.56"; -150 → "-$1.50" (the server's `display_price` format). */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new TypeError(`${cents} is not a whole number of cents`);
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const rest = String(abs % 100).padStart(2, "0");
  return `${sign}$${Math.floor(abs / 100).toLocaleString("en-US")}.${rest}`;
}
