/**
 * The owner's console page as a browser gets it, without a browser: the sign-in form's CSRF
 * token and pre-sign-in cookie, the sign-in post, then /console with the session cookie.
 */
import type { TestApp } from "../app.js";

const cookieOf = (res: Response, name: string) =>
  (res.headers.getSetCookie?.() ?? [])
    .map((c) => c.split(";")[0] ?? "")
    .find((c) => c.startsWith(`${name}=`));

/** Signs in with the wallet key; resolves with a function that loads /console's HTML. */
export async function consoleFor(t: TestApp, walletKey: string): Promise<() => Promise<string>> {
  const form = await t.app.request("/console");
  const pre = cookieOf(form, "kinora_pre");
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!pre || !csrf) throw new Error("the sign-in page gave no CSRF token or cookie");
  const signedIn = await t.app.request("/console/signin", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: pre },
    body: new URLSearchParams({ csrf, wallet_key: walletKey }).toString(),
  });
  const session = cookieOf(signedIn, "kinora_session");
  if (signedIn.status !== 303 || !session) throw new Error(`sign-in answered ${signedIn.status}`);
  return async () => (await t.app.request("/console", { headers: { cookie: session } })).text();
}

/** The jobs table row of `id` in the console's HTML. */
export function consoleRow(html: string, id: string): string {
  // The row may carry more attributes after its data-job (an id to link to it).
  const start = html.indexOf(`<tr data-job="${id}"`);
  if (start < 0) throw new Error(`no console row for ${id}`);
  return html.slice(start, html.indexOf("</tr>", start));
}
