/**
 * The console's forms, each running one operation (./console-forms.ts says which, and how its
 * fields become input) through the shared runner as the signed-in wallet key, with the form's
 * own token as the Idempotency-Key: a refusal — the form's own, or the operation's as REST words
 * it — goes back beside the form that was sent, with what was typed in it; a success shows what
 * it did (a secret once) or goes where it leads (a checkout).
 */
import type { Context } from "hono";
import { listAgentKeys } from "../api/contracts/wallet.js";
import type { AnyContract, OutputOf } from "../api/operation.js";
import { displayCents } from "../domain/money.js";
import type { AppEnv } from "../http/env.js";
import type { Router } from "../http/router.js";
import { kindOfId } from "../operations/kinds.js";
import { CONSOLE_FORMS, type ConsoleForm, cancelJobForm, one } from "./console-forms.js";
import {
  type ConsoleKit,
  consoleReturnOrigin,
  dashboard,
  formCaller,
  formOf,
  page,
  signedIn,
} from "./console-kit.js";
import { keyName, RevokeConfirmPage } from "./console-pages.js";
import { type Caller, callOperation } from "./operation-client.js";
import { csrfToken } from "./session.js";

/** One form's route: the operation it runs, where its refusal goes, and what success does. */
interface Action<C extends AnyContract> {
  form: ConsoleForm<C>;
  /** Which form on the page a refusal goes beside (the id in the URL names a row's). */
  place(id: string): string;
  /** Where a refusal goes when the row is gone (not_found): its section. */
  section: string;
  /** What a refusal's message starts with ("Endpoint not added: "). */
  refusedAs?: string;
  /** The origin the call is made at (a top-up's return pages lead back there). */
  origin?(c: Context<AppEnv>): string | null;
  done(c: Context<AppEnv>, caller: Caller, body: OutputOf<C>): Promise<Response> | Response;
}

/** Runs `a` for the posted form (route parameter `id`), answering with its page. */
async function act<C extends AnyContract>(kit: ConsoleKit, c: Context<AppEnv>, a: Action<C>) {
  const form = await formOf(c);
  const s = await formCaller(kit, c, form);
  if ("answer" in s) return s.answer;
  const id = c.req.param("id") ?? "";
  const refuse = (message: string, status = 400, code = "", retryAfter?: string) => {
    if (retryAfter) c.header("Retry-After", retryAfter);
    const place = code === "not_found" ? a.section : a.place(id);
    const formError = { form: place, message: `${a.refusedAs ?? ""}${message}`, values: form };
    // cast: the refusal's own status is passed on; dashboard's type names only the literal statuses it is called with
    return dashboard(kit, c, s.caller, { formError }, status as 400);
  };
  const input = a.form.input(form, id);
  if (typeof input === "string") return refuse(input);
  const answer = await callOperation(kit.surface, c, {
    contract: a.form.contract,
    input,
    caller: s.caller,
    token: one(form, "idem") || undefined,
    fields: a.form.fields,
    origin: a.origin?.(c),
  });
  if (!answer.ok) return refuse(answer.detail, answer.status, answer.code, answer.retryAfter);
  // cast: an ok answer of contract C is C's output (runOperation ran C)
  return a.done(c, s.caller, answer.body as OutputOf<C>);
}

/** The wallet's key `id` (through GET /wallet/keys), or undefined. */
async function keyOf(kit: ConsoleKit, c: Context<AppEnv>, caller: Caller, id: string) {
  const answer = await callOperation(kit.surface, c, {
    contract: listAgentKeys,
    input: {},
    caller,
  });
  return answer.ok ? answer.body.keys.find((k) => k.id === id) : undefined;
}

/**
 * Revoking asks first, on a page of its own (no script needed): GET shows it, and a POST
 * without the confirmation's field shows it too rather than acting.
 */
async function confirmRevoke(kit: ConsoleKit, c: Context<AppEnv>, caller: Caller) {
  const k = await keyOf(kit, c, caller, c.req.param("id") ?? "");
  if (!k) {
    const formError = { form: "keys", message: "No such key in this wallet.", values: {} };
    return dashboard(kit, c, caller, { formError }, 404);
  }
  if (k.revoked) return dashboard(kit, c, caller, { done: `${keyName(k)} is already revoked.` });
  return page(kit, c, <RevokeConfirmPage k={k} csrf={csrfToken(kit.web, c)} />);
}

/** The keys section's forms: create (the secret shown once), change a limit, revoke. */
function registerKeyForms(app: Router, kit: ConsoleKit) {
  app.post("/console/keys", (c) =>
    act(kit, c, {
      form: CONSOLE_FORMS.newKey,
      place: () => "key",
      section: "key",
      // Shown in this response only (never in a URL or a redirect); a resent form shows it again.
      done: (c, caller, body) =>
        dashboard(kit, c, caller, {
          newSecret: { label: body.agent_key.label || body.agent_key.id, key: body.key },
        }),
    }),
  );
  app.post("/console/keys/:id/limit", (c) =>
    act(kit, c, {
      form: CONSOLE_FORMS.keyLimit,
      place: (id) => `limit:${id}`,
      section: "keys",
      done: (c, caller, { agent_key: k }) =>
        dashboard(kit, c, caller, {
          done: `The limit of ${keyName(k)} is now ${displayCents(k.limit_cents)}; it has ${displayCents(k.remaining_cents)} left.`,
        }),
    }),
  );
  app.get("/console/keys/:id/revoke", async (c) => {
    const s = await signedIn(kit, c);
    if ("answer" in s) return s.answer;
    return s.caller ? confirmRevoke(kit, c, s.caller) : c.redirect("/console", 303);
  });
  app.post("/console/keys/:id/revoke", async (c) => {
    const form = await formOf(c);
    if (one(form, "confirm") !== "yes") {
      const s = await formCaller(kit, c, form);
      return "answer" in s ? s.answer : confirmRevoke(kit, c, s.caller);
    }
    return act(kit, c, {
      form: CONSOLE_FORMS.revokeKey,
      place: () => "keys",
      section: "keys",
      done: (c) => c.redirect("/console#keys", 303),
    });
  });
}

/** The webhooks section's forms: register (its secret shown once), test, delete, rotate. */
function registerWebhookForms(app: Router, kit: ConsoleKit) {
  app.post("/console/webhooks", (c) =>
    act(kit, c, {
      form: CONSOLE_FORMS.newEndpoint,
      place: () => "webhook",
      section: "webhook",
      refusedAs: "Endpoint not added: ",
      // Shown in this response only, never again.
      done: (c, caller, body) =>
        dashboard(kit, c, caller, {
          newWebhookSecret: { url: body.endpoint.url, secret: body.secret },
        }),
    }),
  );
  for (const [action, form] of [
    ["test", CONSOLE_FORMS.testEndpoint],
    ["delete", CONSOLE_FORMS.deleteEndpoint],
  ] as const) {
    app.post(`/console/webhooks/:id/${action}`, (c) =>
      act<AnyContract>(kit, c, {
        form,
        place: (id) => `endpoint:${id}`,
        section: "webhooks",
        done: (c) => c.redirect("/console#webhooks", 303),
      }),
    );
  }
  app.post("/console/webhooks/secret/rotate", (c) =>
    act(kit, c, {
      form: CONSOLE_FORMS.rotateSecret,
      place: () => "secret",
      section: "secret",
      done: (c, caller, body) => dashboard(kit, c, caller, { newSigningSecret: body.secret }),
    }),
  );
}

/** A job's Cancel: its kind's cancel operation (the kind is read from the id's prefix). */
async function cancelJob(kit: ConsoleKit, c: Context<AppEnv>) {
  const id = c.req.param("id") ?? "";
  const kind = kindOfId(kit.surface.kinds, id);
  if (!kind) {
    const s = await formCaller(kit, c, await formOf(c));
    if ("answer" in s) return s.answer;
    const formError = { form: "jobs", message: "No such job in this wallet.", values: {} };
    return dashboard(kit, c, s.caller, { formError }, 404);
  }
  return act(kit, c, {
    form: cancelJobForm(kind.cancel.contract),
    place: (jobId) => `job:${jobId}`,
    section: "jobs",
    done: (c, caller) =>
      dashboard(kit, c, caller, {
        done: `The ${kind.noun} ${id} is cancelled; what it cost went back to the balance.`,
      }),
  });
}

/** Every console form's route. */
export function registerConsoleActions(app: Router, kit: ConsoleKit) {
  app.post("/console/topup", (c) =>
    act(kit, c, {
      form: CONSOLE_FORMS.topup,
      place: () => "topup",
      section: "topup",
      refusedAs: "Top-up not started: ",
      origin: (c) => consoleReturnOrigin(c.req.url, kit.surface.publicUrl),
      done: (c, _caller, body) => c.redirect(body.checkout_url, 303),
    }),
  );
  registerKeyForms(app, kit);
  registerWebhookForms(app, kit);
  app.post("/console/jobs/:id/cancel", (c) => cancelJob(kit, c));
}
