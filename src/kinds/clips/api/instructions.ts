/** What an assistant is told about clips at `initialize` (the MCP instructions), step by step. */
import { displayCents } from "../../../domain/money.js";
import { CLIP_PRICE_CENTS } from "../rules/rules.js";

const prices = Object.entries(CLIP_PRICE_CENTS)
  .map(([size, cents]) => `${displayCents(cents)} at ${size}`)
  .join(", ");

/** The clip flow in the tools' names, and the content rule. */
export const CLIP_INSTRUCTIONS = [
  `Clip (one still image plus a prompt made into a 5-second clip with sound): get_prices (free; ${prices}) → tell the price → make_clip with image_url (starts at once) or with content_type (then PUT the image to upload_url with upload_headers and call start_clip) → get_clip with wait_seconds until done → give the owner video_url. A clip can be cancelled while its image never arrived.`,
  "Content rule for clips: no sexual or nude content, and nothing sexual or suggestive involving a minor. A prompt that breaks it is refused and nothing is charged; an image that breaks it ends the clip refused and refunded.",
].join("\n\n");
