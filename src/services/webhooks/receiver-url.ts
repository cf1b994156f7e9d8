/**
 * Which receiver URLs kinora delivers to, checked at registration (a job's webhook_url, an
 * endpoint) and again before every attempt (DNS may have changed): https to a public address,
 * through net/public-target.ts (no private, loopback, link-local or metadata address, default
 * or unprivileged ports, no credentials). Only when the operator sets
 * WEBHOOK_ALLOW_HTTP_LOOPBACK=true or ALLOW_LOOPBACK_URLS=1 (development) may a receiver be on
 * this machine's loopback (127.0.0.0/8, ::1, localhost), over http too.
 */
import { ImageFetchError } from "../../net/fetch-errors.js";
import { isLoopbackAddress } from "../../net/ip-ranges.js";
import {
  checkUrl,
  type ResolvedAddress,
  resolveTarget,
  type Target,
  type TargetGuard,
} from "../../net/public-target.js";

/** The operator's choice, and the resolver (tests). */
export interface ReceiverPolicy {
  allowHttpLoopback: boolean;
  lookup?: TargetGuard["lookup"];
}

/** A receiver URL kinora will not deliver to; the message names the field and what to fix. */
export class ReceiverRefused extends Error {
  override readonly name = "ReceiverRefused";
}

const RESOLVE_TIMEOUT_MS = 5_000;

function guard(policy: ReceiverPolicy): TargetGuard {
  return {
    ...(policy.lookup ? { lookup: policy.lookup } : {}),
    ...(policy.allowHttpLoopback ? { allowLoopback: true } : {}),
  };
}

/**
 * The checked target and the addresses to connect to (pinned), or ReceiverRefused. Refuses
 * plain http unless the operator allows loopback receivers and this one is one.
 */
export async function resolveReceiver(
  raw: string,
  policy: ReceiverPolicy,
  field: string,
): Promise<{ target: Target; addresses: ResolvedAddress[] }> {
  try {
    const target = checkUrl(raw, field);
    const addresses = await resolveTarget(
      target,
      guard(policy),
      field,
      AbortSignal.timeout(RESOLVE_TIMEOUT_MS),
    );
    const loopback = addresses.every((a) => isLoopbackAddress(a.address));
    if (target.url.protocol !== "https:" && !loopback) {
      throw new ReceiverRefused(`${field} must use https; give an https URL.`);
    }
    if (target.url.hash) {
      throw new ReceiverRefused(`${field} must not have a #fragment; remove it.`);
    }
    return { target, addresses };
  } catch (err) {
    if (err instanceof ReceiverRefused) throw err;
    if (err instanceof ImageFetchError) throw new ReceiverRefused(err.message);
    throw err;
  }
}
