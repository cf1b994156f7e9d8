/**
 * The preview's operator settings, read from the environment the config keeps for areas that
 * parse their own section: PREVIEW_PER_HOUR (free previews per wallet per hour; default 6, 0
 * turns previews off). A bad value stops the start, like every other setting.
 */
import { PREVIEW_PER_HOUR_DEFAULT } from "../rules/transitions.js";

/** What PREVIEW_PER_HOUR allows. */
export interface PreviewSettings {
  perHour: number;
}

/** The settings in `env`; throws naming the variable when its value is not a whole number. */
export function previewSettings(env: Readonly<Record<string, string>> = {}): PreviewSettings {
  const raw = env.PREVIEW_PER_HOUR;
  if (raw === undefined) return { perHour: PREVIEW_PER_HOUR_DEFAULT };
  const perHour = Number(raw);
  if (!Number.isInteger(perHour) || perHour < 0 || perHour > 100_000) {
    throw new Error(`PREVIEW_PER_HOUR must be a whole number from 0 to 100000, not ${raw}`);
  }
  return { perHour };
}
