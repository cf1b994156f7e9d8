/**
 * How a call of an operation counts against its contract's rate bucket, as REST counts it — and
 * the owner's pages (the console), which run the same operations as the wallet key, count it
 * the same way through this: spending is counted per key (the credential's digest); a caller
 * without a key that spends (a restore paid by checkout) creates; creating and quoting are
 * counted per client address.
 */
import type { RateBucket } from "../api/operation.js";
import { credentialDigest, type RateDeps, takeRate } from "../services/rate-buckets.js";
import type { Decision } from "../services/rate-limit.js";

/** Counts one call in `bucket`; the decision (for RateLimit headers), or throws the 429. */
export function takeOperationRate(
  deps: RateDeps,
  bucket: RateBucket,
  credential: string | undefined,
  address: string,
): Promise<Decision | undefined> {
  if (bucket === "spend" && credential !== undefined) {
    return takeRate(deps, "spend", credentialDigest(credential));
  }
  return takeRate(deps, bucket === "spend" ? "create" : bucket, address);
}
