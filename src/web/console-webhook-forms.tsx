/** The console's webhook forms: register an endpoint (its secret shown once), test, delete. */
import type { Context } from "hono";
import { ApiError } from "../domain/errors.js";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../domain/webhooks.js";
import type { AppEnv } from "../http/env.js";
import type { Router } from "../http/router.js";
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointDeps,
  sendTestEvent,
} from "../services/webhooks/endpoints.js";
import type { DashboardView, Status } from "./console-pages.js";

/** What the webhook forms borrow from the console routes: forms, sessions, the dashboard. */
export interface FormHelpers {
  formOf(c: Context<AppEnv>): Promise<Record<string, string>>;
  formSession(
    c: Context<AppEnv>,
    form: Record<string, string>,
  ): Promise<{ answer: Response } | { walletId: string }>;
  dashboard(
    c: Context<AppEnv>,
    walletId: string,
    extra?: Partial<DashboardView>,
    status?: Status,
  ): Promise<Response>;
  webhooks: EndpointDeps;
}

/** The webhooks section's forms: register (secret shown once), send a test event, delete. */
export function registerWebhookForms(app: Router, h: FormHelpers) {
  const refused = async (c: Context<AppEnv>, walletId: string, err: unknown) => {
    if (!(err instanceof ApiError)) throw err;
    return h.dashboard(c, walletId, { notice: err.detail }, 400);
  };
  app.post("/console/webhooks", async (c) => {
    const raw = await c.req.text();
    const form = Object.fromEntries(new URLSearchParams(raw));
    const s = await h.formSession(c, form);
    if ("answer" in s) return s.answer;
    const events = new URLSearchParams(raw).getAll("events") as WebhookEventType[];
    try {
      const url = (form.url ?? "").trim();
      const created = await createEndpoint(h.webhooks, s.walletId, {
        url,
        events: events.filter((e) => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(e)),
      });
      // Shown in this response only, never again.
      return h.dashboard(c, s.walletId, { newWebhookSecret: { url, secret: created.secret } });
    } catch (err) {
      return refused(c, s.walletId, err);
    }
  });
  for (const action of ["test", "delete"] as const) {
    app.post(`/console/webhooks/:id/${action}`, async (c) => {
      const s = await h.formSession(c, await h.formOf(c));
      if ("answer" in s) return s.answer;
      const id = c.req.param("id") ?? "";
      try {
        if (action === "test") await sendTestEvent(h.webhooks, s.walletId, id);
        else await deleteEndpoint(h.webhooks, s.walletId, id);
      } catch (err) {
        return refused(c, s.walletId, err);
      }
      return c.redirect("/console#webhooks", 303);
    });
  }
}
