/**
 * The service bundles several features share — the payment services (one checkout provider,
 * one x402 gateway) and the clip services — built once per platform: the payments feature,
 * the MCP server and the console all call the same services, so they get the same bundle.
 *
 * The first feature that asks builds the bundle with its options; every later one gets that
 * bundle and its options are not used. The features that carry test seams for a bundle
 * (payments, clips) come first in every feature list, so their seams are the ones built.
 */
import type { Platform } from "../feature.js";

const bundles = new WeakMap<Platform, Map<string, unknown>>();

/** The platform's bundle called `name`, built by `build` on the first call only. */
export function sharedBundle<T>(p: Platform, name: string, build: () => T): T {
  let built = bundles.get(p);
  if (!built) {
    built = new Map();
    bundles.set(p, built);
  }
  if (!built.has(name)) built.set(name, build());
  return built.get(name) as T;
}
