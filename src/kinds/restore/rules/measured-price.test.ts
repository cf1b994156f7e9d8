import { describe, expect, it } from "vitest";
import { measuredPrice, measuredRefundReason } from "./measured-price.js";

describe("measuredPrice", () => {
  it("charges a 10 s video declared as 301 s the 10 s price and gives the difference back", () => {
    const price = measuredPrice({ quality: "faithful", chargedCents: 349, measuredSec: 10 });
    expect(price).toEqual({ amountCents: 299, backCents: 50 });
    expect(measuredRefundReason("rj_x", 10, 301, price)).toBe(
      "restore rj_x measured 0:10 long (declared 5:01): priced $2.99, $0.50 back",
    );
  });

  it("never charges more when the measured length prices higher (within the tolerance)", () => {
    expect(measuredPrice({ quality: "enhanced", chargedCents: 499, measuredSec: 320 })).toEqual({
      amountCents: 499,
      backCents: 0,
    });
  });

  it("prices the measured length at the declared size (high resolution ×1.5)", () => {
    // Studio Max at 3840×2160: 400 s is (899 + 2 × 160) × 1.5 = $18.29; 60 s is 899 × 1.5 = $13.49.
    const big = { quality: "enhanced_max" as const, width: 3840, height: 2160 };
    expect(measuredPrice({ ...big, chargedCents: 1829, measuredSec: 60 })).toEqual({
      amountCents: 1349,
      backCents: 480,
    });
  });
});
