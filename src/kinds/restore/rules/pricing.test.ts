/**
 * The price table as customers read it (GET /cloud/prices, MCP get_prices, `kinora restore
 * --help`): every quality says what it does and how long an hour of video takes, in words.
 */
import { describe, expect, it } from "vitest";
import { RESTORE_LIMIT_CEILINGS } from "./limits.js";
import { hourOfSdTakes, PRICE_TABLE, priceTableView, RESTORE_QUALITIES } from "./pricing.js";

describe("the price table's words", () => {
  it("says what each quality does and how long an hour of SD takes", () => {
    const view = priceTableView(RESTORE_LIMIT_CEILINGS);
    expect(view.qualities.map((q) => q.quality)).toEqual([...RESTORE_QUALITIES]);
    for (const q of view.qualities) {
      expect(q.does).toBe(PRICE_TABLE[q.quality].summary);
      expect(q.hour_of_sd_takes).toMatch(
        /^about \d+(½)? (minutes|hours?)\b.* on a busy 2-core server/,
      );
    }
    // Slower qualities take longer: the figures are measured, not copied from one another.
    for (const side of [0, 1]) {
      const rates = RESTORE_QUALITIES.map((q) => PRICE_TABLE[q].sdSecondsPerSecond[side] ?? 0);
      expect(rates.every((r) => r > 0)).toBe(true);
      expect(rates).toEqual([...rates].sort((a, b) => a - b));
    }
  });

  it("rounds an hour's duration the way people say it", () => {
    expect(hourOfSdTakes(0.3)).toBe("about 20 minutes");
    expect(hourOfSdTakes(1)).toBe("about 60 minutes");
    expect(hourOfSdTakes(1.6)).toBe("about 1½ hours");
    expect(hourOfSdTakes(2.55)).toBe("about 2½ hours");
    expect(hourOfSdTakes(4.1)).toBe("about 4 hours");
  });
});
