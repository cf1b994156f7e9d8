import { createRoute, z } from "@hono/zod-openapi";
import { RestoreJob } from "../../../api/restore.js";
import { IdParam } from "../../../api/schemas.js";
import { notFound } from "../../../domain/errors.js";
import { openRestoreCheckout } from "../../../services/payments/checkouts.js";
import type { PaymentsDeps } from "../../../services/payments/deps.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";

export function registerRestoreCheckout(app: Router, deps: PaymentsDeps) {
  const route = createRoute({
    method: "post",
    path: "/cloud/jobs/{id}/checkout",
    operationId: "createRestoreCheckout",
    tags: ["Cloud restore"],
    summary: "Checkout link for a restore paid per job",
    description:
      "For a job created without a key (pay_with checkout): once the file is uploaded, returns the hosted checkout link for the customer. Paying starts the job. Asking again returns a link for the same job; a job is paid at most once.",
    request: { params: IdParam("id", "rj_4f8HkQ2n9LrT1xZcV6bYpA") },
    responses: {
      200: {
        description: "The checkout link and the job.",
        content: {
          "application/json": {
            schema: z.object({
              checkout_url: z.string(),
              job: RestoreJob,
            }),
          },
        },
      },
      ...errorResponses(400, 404, 409, 503),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const opened = await openRestoreCheckout(deps, id);
    const job = await deps.restore?.viewJob(deps.platform, id);
    if (!job) throw notFound("Restore job");
    return c.json({ checkout_url: opened.checkout_url, job }, 200);
  });
}
