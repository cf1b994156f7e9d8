/**
 * Checked element reads. Under `noUncheckedIndexedAccess`, `xs[i]` is typed `T | undefined`;
 * where the index is in range by construction (a loop bound, a median of a non-empty list) these
 * return `T` and throw a RangeError naming the index and length when it is not, instead of
 * letting an `undefined` (a NaN in arithmetic) run on silently as a cast would.
 *
 * The typed-array readers are separate functions on purpose: the pixel loops of the restore
 * probe call them millions of times, and a reader that sees one array type stays monomorphic,
 * as fast as plain indexing once inlined; one generic reader fed bytes, floats and plain arrays
 * goes megamorphic and was 10–15× slower on a 720×576 plane. A pixel loop also binds the reader
 * to a local const once: called through the module namespace (as vitest and tsx run the source,
 * unlike the bundle) it is not inlined, and those loops ran 15–30× slower.
 */

function outOfRange(i: number, length: number): RangeError {
  return new RangeError(`index ${i} is out of range (length ${length})`);
}

/**
 * `xs[i]` of a plain array; throws a RangeError when `i` is not an index of `xs` (an element
 * that is itself `undefined` counts as missing: no array read through this holds one).
 */
export function at<T>(xs: readonly T[], i: number): T {
  const v = xs[i];
  if (v === undefined) throw outOfRange(i, xs.length);
  return v;
}

/** The last element of `xs`; throws a RangeError when `xs` is empty. */
export function last<T>(xs: readonly T[]): T {
  return at(xs, xs.length - 1);
}

/** `bytes[i]`; throws a RangeError when `i` is out of range. */
export function byteAt(bytes: Uint8Array, i: number): number {
  const v = bytes[i];
  if (v === undefined) throw outOfRange(i, bytes.length);
  return v;
}

/** `xs[i]` of a Float64Array; throws a RangeError when `i` is out of range. */
export function f64At(xs: Float64Array, i: number): number {
  const v = xs[i];
  if (v === undefined) throw outOfRange(i, xs.length);
  return v;
}

/** `xs[i]` of a Float32Array; throws a RangeError when `i` is out of range. */
export function f32At(xs: Float32Array, i: number): number {
  const v = xs[i];
  if (v === undefined) throw outOfRange(i, xs.length);
  return v;
}
