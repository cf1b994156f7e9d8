import { describe, expect, it } from "vitest";
import { withoutRetryPromise } from "./messages.js";

describe("withoutRetryPromise", () => {
  it("drops the promise of a retry from the last attempt's message", () => {
    expect(
      withoutRetryPromise("Could not read the clip's image (HTTP 503); the clip will be retried."),
    ).toBe("Could not read the clip's image (HTTP 503).");
    expect(
      withoutRetryPromise("The processing engine failed unexpectedly; the job will be retried."),
    ).toBe("The processing engine failed unexpectedly.");
  });

  it("leaves other messages whole, ending them as a sentence", () => {
    expect(withoutRetryPromise("The restored video did not reach storage.")).toBe(
      "The restored video did not reach storage.",
    );
    expect(withoutRetryPromise("engine crashed")).toBe("engine crashed.");
  });
});
