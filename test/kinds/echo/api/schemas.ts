/** The echo kind's requests and views, shared by REST and MCP. */
import { z } from "@hono/zod-openapi";
import { QueueEstimate } from "../../../../src/api/schemas.js";
import { MaxPriceFields, type SpendQuote } from "../../../../src/api/spend.js";
import { ECHO_MAX_BYTES, ECHO_PRICE_CENTS, ECHO_STATUSES } from "../rules/transitions.js";

/** An echo job as every surface shows it. */
export const EchoJob = z
  .object({
    id: z.string().openapi({ example: "echo_4f8HkQ2n9LrT1xZcV6bYpA" }),
    status: z.enum(ECHO_STATUSES),
    shout: z.boolean(),
    amount_cents: z.number().int(),
    progress: z.number().nullable(),
    result: z.string().nullable().openapi({ description: "The text, echoed, once done." }),
    error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
    expires_at: z.string().nullable(),
    queue: QueueEstimate.nullable(),
  })
  .openapi("EchoJob");
/** An echo job, as a handler returns it. */
export type EchoView = z.input<typeof EchoJob>;

/** The answer of every read, start and cancel. */
export const EchoAnswer = z.object({ job: EchoJob });

/** What creating an echo takes: the text's size, and whether to shout it back. */
export const CreateEchoBody = z
  .object({
    text_bytes: z
      .number({ error: `must be a whole number of bytes from 1 to ${ECHO_MAX_BYTES}` })
      .int(`must be a whole number of bytes from 1 to ${ECHO_MAX_BYTES}`)
      .min(1, `must be a whole number of bytes from 1 to ${ECHO_MAX_BYTES}`)
      .max(ECHO_MAX_BYTES, `must be at most ${ECHO_MAX_BYTES} bytes`)
      .openapi({ example: 12 }),
    shout: z.boolean().default(true),
    ...MaxPriceFields,
  })
  .strict()
  .openapi({ example: { text_bytes: 12, shout: true } });

/** The created job and where its text goes. */
export const CreatedEcho = z.object({
  job: EchoJob,
  upload_url: z.string(),
  upload_headers: z.record(z.string(), z.string()),
});

/** Echo's prices and limits. */
export const EchoPrices = z.object({
  price_cents: z.number().int(),
  max_text_bytes: z.number().int(),
});

/** What an echo charges: always its one price. */
export const echoSpend = (): SpendQuote => ({ cents: ECHO_PRICE_CENTS, what: "An echo" });
