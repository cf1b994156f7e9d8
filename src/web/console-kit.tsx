/**
 * What the console's routes share: the operations' client and REST's policies (a
 * PagesSurface), the browser's session and forms, and how a console page answers — with the
 * headers of a page that takes decisions, the dashboard read through the operations, or a page
 * saying why it cannot be shown (a refusal of the operations, e.g. too many requests).
 */
import type { Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import { ApiError } from "../domain/errors.js";
import type { AppEnv } from "../http/env.js";
import { DashboardRefused, loadDashboard } from "./console-dashboard.js";
import { type FormValues, formValues, one } from "./console-forms.js";
import { DashboardPage, type DashboardView, SignInPage, type Status } from "./console-pages.js";
import { decisionPageHeaders, Page } from "./layout.js";
import { type Caller, callerOf, type PagesSurface, type Refusal } from "./operation-client.js";
import { csrfToken, csrfValid, readSession, type WebDeps } from "./session.js";

/** Host names that always mean this machine: the console may be opened at any of them. */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Where the checkout's return pages should lead back to the console: the origin the owner
 * is signed in at (their session cookie lives there) when it is PUBLIC_URL's own or a loopback
 * name (localhost vs 127.0.0.1); null for any other Host header, so a forged one cannot put a
 * foreign link on kinora's pages — those pages then link to /console on their own host.
 */
export function consoleReturnOrigin(requestUrl: string, publicUrl: string): string | null {
  const here = new URL(requestUrl);
  if (here.origin === new URL(publicUrl).origin) return here.origin;
  return LOOPBACK_NAMES.has(here.hostname) ? here.origin : null;
}

/** What composition tells the console besides the operations. */
export interface ConsoleOptions {
  /** Where a top-up's checkout page is: the pages' forms may lead there. */
  checkoutOrigin(): string;
  /** Whether webhook receivers on this machine are accepted (ALLOW_LOOPBACK_URLS). */
  allowLoopbackReceivers: boolean;
}

/** The console's shared parts. */
export interface ConsoleKit {
  surface: PagesSurface;
  web: WebDeps;
  opts: ConsoleOptions;
}

/** A console page, with the headers of a page that takes decisions. */
export function page(
  kit: ConsoleKit,
  c: Context<AppEnv>,
  node: JSX.Element,
  status: Status = 200,
  images: readonly string[] = [],
) {
  const headers = decisionPageHeaders([kit.opts.checkoutOrigin()], { images });
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  return c.html(`<!doctype html>${String(node)}`, status);
}

/** The page for a refusal that leaves nothing to show (too many requests, a paused read). */
export function refusedPage(kit: ConsoleKit, c: Context<AppEnv>, refusal: Refusal) {
  if (refusal.retryAfter) c.header("Retry-After", refusal.retryAfter);
  const node = (
    <Page title="Console">
      <h1>Not now</h1>
      <p class="error" role="alert" id="refused">
        {refusal.detail}
      </p>
      <p>
        <a href="/console">Back to the console</a>
      </p>
    </Page>
  );
  // cast: a refusal's status is one of the error table's, which the page accepts
  return page(kit, c, node, refusal.status as Status);
}

/** The sign-in page, saying why it is shown. */
export const signInAgain = (kit: ConsoleKit, c: Context<AppEnv>, error: string, status: Status) =>
  page(kit, c, <SignInPage csrf={csrfToken(kit.web, c)} error={error} />, status);

/**
 * The signed-in caller of this request — its key checked, and counted against the key's own
 * rate bucket, as every keyed REST request is — or null when signed out.
 */
export async function signedIn(
  kit: ConsoleKit,
  c: Context<AppEnv>,
): Promise<{ caller: Caller | null } | { answer: Response }> {
  const session = await readSession(kit.web, c);
  const caller = session ? await callerOf(kit.surface, session) : null;
  if (!caller) return { caller: null };
  try {
    await kit.surface.rates.key(caller.credential);
  } catch (err) {
    const refused = refusalOfError(err);
    if (!refused) throw err;
    return { answer: refusedPage(kit, c, refused) };
  }
  return { caller };
}

/** An ApiError thrown by a policy, as a refusal; undefined for anything else. */
function refusalOfError(err: unknown): Refusal | undefined {
  if (!(err instanceof ApiError)) return undefined;
  const wait = err.headers["Retry-After"];
  const refusal: Refusal = { ok: false, status: err.status, code: err.code, detail: err.detail };
  return wait === undefined ? refusal : { ...refusal, retryAfter: wait };
}

/** The fields of a posted form. */
export const formOf = async (c: Context<AppEnv>) => formValues(await c.req.text());

/**
 * The caller of a posted form with this browser's CSRF token, or the page to answer instead
 * (the sign-in page: the form expired, or the browser is signed out).
 */
export async function formCaller(
  kit: ConsoleKit,
  c: Context<AppEnv>,
  form: FormValues,
): Promise<{ caller: Caller } | { answer: Response }> {
  if (!csrfValid(kit.web, c, one(form, "csrf"))) {
    return { answer: signInAgain(kit, c, "That form expired; sign in again.", 403) };
  }
  const s = await signedIn(kit, c);
  if ("answer" in s) return s;
  return s.caller ? { caller: s.caller } : { answer: c.redirect("/console", 303) };
}

/** The dashboard, with what an action adds (a done message, a secret, a refusal). */
export async function dashboard(
  kit: ConsoleKit,
  c: Context<AppEnv>,
  caller: Caller,
  extra: Partial<DashboardView> = {},
  status: Status = 200,
) {
  const before = Number(c.req.query("ledger_before"));
  let loaded: Awaited<ReturnType<typeof loadDashboard>>;
  try {
    const paged = Number.isSafeInteger(before) && before > 0 ? before : undefined;
    loaded = await loadDashboard(kit.surface, c, caller, paged);
  } catch (err) {
    if (err instanceof DashboardRefused) return refusedPage(kit, c, err.refusal);
    throw err;
  }
  const v: DashboardView = {
    ...loaded,
    csrf: csrfToken(kit.web, c),
    allowLoopbackReceivers: kit.opts.allowLoopbackReceivers,
    ...extra,
  };
  return page(kit, c, <DashboardPage v={v} />, status, v.imageOrigins);
}
