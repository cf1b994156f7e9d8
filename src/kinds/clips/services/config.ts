/** What GET /motion/config and the MCP get_prices tool show: sizes with prices, limits, codes. */

import {
  AGENT_KEY_LIMIT_CENTS,
  CARD_TOPUP_CENTS,
  USDC_TOPUP_CENTS,
} from "../../../domain/limits.js";
import { REFUSAL_CODES } from "../rules/prompt-rule.js";
import {
  CLIP_DIMENSIONS,
  CLIP_IMAGE_MAX_BYTES,
  CLIP_IMAGE_TYPES,
  CLIP_LIST_MAX,
  CLIP_PROMPT_MAX_CHARS,
  CLIP_SECONDS_ALLOWED,
  CLIP_SIZES,
  clipPrice,
  DEFAULT_CLIP_SIZE,
} from "../rules/rules.js";

/** The public clip settings (the MotionConfig answer). */
export function motionConfig() {
  return {
    sizes: CLIP_SIZES.map((size) => ({ ...CLIP_DIMENSIONS[size], ...clipPrice(size) })),
    default_size: DEFAULT_CLIP_SIZE,
    seconds: [...CLIP_SECONDS_ALLOWED],
    image_types: [...CLIP_IMAGE_TYPES],
    image_max_bytes: CLIP_IMAGE_MAX_BYTES,
    prompt_max_chars: CLIP_PROMPT_MAX_CHARS,
    list_max: CLIP_LIST_MAX,
    topup_cents: { ...CARD_TOPUP_CENTS },
    usdc_topup_cents: { ...USDC_TOPUP_CENTS },
    key_limit_cents: { ...AGENT_KEY_LIMIT_CENTS },
    refusal_codes: { ...REFUSAL_CODES },
  };
}
