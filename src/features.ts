/** Every feature kinora serves, in mount order. */
import type { FeatureFactory } from "./platform.js";

export const FEATURES: FeatureFactory[] = [];
