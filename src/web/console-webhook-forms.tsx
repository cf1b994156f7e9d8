/** The console's webhook forms: register an endpoint (its secret shown once), test, delete. */
import type { Context } from "hono";
import { bidiControlIn } from "../domain/bidi.js";
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

/**
 * A console field refused for a bidirectional control (domain/bidi.ts), in the words of the
 * API's refusal, naming the field as the form labels it.
 */
export function bidiRefusal(field: string, char: string): string {
  return `${field}: must not contain bidirectional control characters (${char}): they reorder how text is shown; remove them.`;
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
    const url = (form.url ?? "").trim();
    // Refused beside the form (not at the top of the page), with the URL and events kept.
    const refuse = (message: string) =>
      h.dashboard(
        c,
        s.walletId,
        { formError: { form: "webhook", message, values: { url, events } } },
        400,
      );
    const bidi = bidiControlIn(url);
    if (bidi) return refuse(`Endpoint not added: ${bidiRefusal("URL", bidi)}`);
    try {
      const created = await createEndpoint(h.webhooks, s.walletId, {
        url,
        events: events.filter((e) => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(e)),
      });
      // Shown in this response only, never again.
      return h.dashboard(c, s.walletId, { newWebhookSecret: { url, secret: created.secret } });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // The service names the API's field ("url: …"); the form calls it the URL.
      return refuse(`Endpoint not added: ${err.detail.replace(/^url: /, "the URL ")}`);
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
