/** Free reads of prices: get_prices and quote_restore. */
import { z } from "@hono/zod-openapi";
import { MotionConfig } from "../../api/clips.js";
import { Quote, QuoteBody } from "../../api/restore.js";
import { priceTableView } from "../../domain/restore/pricing.js";
import { motionConfig } from "../../services/clips/config.js";
import { quoteRestore } from "../../services/restore/quote.js";
import { defineTool, READ_ONLY, reply } from "../tool.js";

export const getPrices = defineTool({
  name: "get_prices",
  title: "Prices and limits",
  description:
    "Free. Current prices and limits: cloud restore (Standard/faithful from $2.99, Enhanced from $4.99, Studio Max/enhanced_max from $8.99 for up to 5 minutes, then per started minute; ×1.5 above 1920×1080), motion clips ($0.59 at 480p, $0.99 at 720p, 5 seconds), top-up ranges, image types and the content rule's refusal codes. Use quote_restore for a video's exact price.",
  input: z.object({}).strict(),
  output: z.object({ restore: z.object({}).passthrough(), clips: MotionConfig }),
  annotations: READ_ONLY,
  run: async () => reply({ restore: priceTableView(), clips: motionConfig() }),
});

export const quoteRestoreTool = defineTool({
  name: "quote_restore",
  title: "Quote a restore",
  description:
    "Free. The exact price of restoring a video of `duration_sec` seconds (and optionally `width`×`height` pixels) at a `quality` (faithful = Standard, enhanced = default, enhanced_max = Studio Max). State this price to the owner before create_restore.",
  input: QuoteBody,
  output: Quote,
  annotations: READ_ONLY,
  run: async (_ctx, a) =>
    reply(
      quoteRestore({
        durationSec: a.duration_sec,
        quality: a.quality,
        width: a.width,
        height: a.height,
      }),
    ),
});
