/** The configured USDC runtime, or the 503 every USDC operation answers when USDC is off. */
import { ApiError } from "../../domain/errors.js";
import type { PaymentsDeps, UsdcRuntime } from "./deps.js";

export function usdcRuntime(deps: PaymentsDeps): UsdcRuntime {
  if (!deps.usdc) {
    throw new ApiError("unavailable", "USDC payments are not switched on at this server.");
  }
  return deps.usdc;
}
