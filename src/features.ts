/** Every feature kinora serves, in mount order. */
import { clipsFeature } from "./features/clips.js";
import { paymentsFeature } from "./features/payments.js";
import { restoreFeature } from "./features/restore.js";
import type { FeatureFactory } from "./platform.js";

export const FEATURES: FeatureFactory[] = [restoreFeature(), clipsFeature(), paymentsFeature()];
