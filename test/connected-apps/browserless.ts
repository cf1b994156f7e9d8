/**
 * The consent page driven without a browser, for the negative cases: a cookie jar, the forms'
 * hidden fields read from the HTML, and the redirects not followed (so the code is seen).
 */
import { createHash, randomBytes } from "node:crypto";
import type { TestApp } from "../app.js";

export const pkce = () => {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
};

export interface Browserless {
  cookies: Map<string, string>;
  get(path: string): Promise<Response>;
  post(path: string, form: Record<string, string>): Promise<Response>;
  /** The hidden fields (csrf, req) of the last page that had a form. */
  fields(html: string): { csrf: string; req: string };
}

export function browserless(t: TestApp): Browserless {
  const cookies = new Map<string, string>();
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, ...rest] = (pair ?? "").split("=");
      if (!name) continue;
      const value = rest.join("=");
      if (/max-age=0/i.test(line) || value === "") cookies.delete(name.trim());
      else cookies.set(name.trim(), value);
    }
    return res;
  };
  return {
    cookies,
    get: async (path) =>
      remember(await t.app.request(path, { headers: { cookie: cookieHeader() } })),
    post: async (path, form) =>
      remember(
        await t.app.request(path, {
          method: "POST",
          headers: { cookie: cookieHeader(), "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(form).toString(),
        }),
      ),
    fields(html) {
      const value = (name: string) =>
        new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replaceAll("&amp;", "&") ??
        "";
      return { csrf: value("csrf"), req: value("req") };
    },
  };
}

export async function registerClient(t: TestApp, redirectUris: string[], name = "Rules App") {
  const res = await t.call("POST", "/oauth/register", {
    body: { client_name: name, redirect_uris: redirectUris, token_endpoint_auth_method: "none" },
  });
  return res;
}

export function authorizePath(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return `/oauth/authorize?${q}`;
}
