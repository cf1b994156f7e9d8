import { createRoute, z } from "@hono/zod-openapi";
import { AgentKey } from "../../../api/schemas.js";
import { AGENT_KEY_LIMIT_CENTS, LABEL_MAX_LENGTH } from "../../../domain/limits.js";
import { createAgentKey } from "../../../services/agent-keys.js";
import type { CoreDeps } from "../../../services/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

const { min, max } = AGENT_KEY_LIMIT_CENTS;

const Body = z
  .object({
    label: z
      .string()
      .max(LABEL_MAX_LENGTH, `must be at most ${LABEL_MAX_LENGTH} characters`)
      .optional(),
    limit_cents: z
      .number({ error: `must be an integer from ${min} to ${max}` })
      .int(`must be an integer from ${min} to ${max}`)
      .min(min, `must be an integer from ${min} to ${max}`)
      .max(max, `must be an integer from ${min} to ${max}`),
    ask_before_spending: z.boolean({ error: "must be true or false" }).optional().openapi({
      description:
        "Default true: assistants using this key ask the owner before each purchase. false: the owner agrees in advance to spending within the limit.",
    }),
  })
  .strict()
  .openapi({ example: { label: "my assistant", limit_cents: 500, ask_before_spending: true } });

export function registerCreateKey(app: Router, deps: CoreDeps, maxActive: number) {
  const route = createRoute({
    method: "post",
    path: "/wallet/keys",
    operationId: "createAgentKey",
    tags: ["Agent keys"],
    summary: "Create an agent key",
    description:
      "Creates an agent key (`pak_`) that can spend at most `limit_cents` in total from this wallet. The secret is shown once. Wallet key only.",
    security: bearerSecurity,
    "x-wallet-key-only": true,
    middleware: [requireKey(deps, { walletOnly: true })] as const,
    request: { body: { required: true, content: { "application/json": { schema: Body } } } },
    responses: {
      200: {
        description: "The agent key secret (shown once) and its details.",
        content: {
          "application/json": {
            schema: z.object({
              key: z.string().openapi({ example: "pak_7Qx…" }),
              agent_key: AgentKey,
            }),
          },
        },
      },
      ...errorResponses(400, 401, 403, 409),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const result = await createAgentKey(deps, c.get("principal").walletId, {
      label: body.label,
      limitCents: body.limit_cents,
      askBeforeSpending: body.ask_before_spending,
      maxActive,
    });
    return c.json(result, 200);
  });
}
