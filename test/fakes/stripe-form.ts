/**
 * The request side of the Stripe fake (./stripe-server.ts): Stripe's form bodies decoded as its
 * parser does, its error bodies, and its checks on a one-off Checkout Session's parameters.
 */

import type http from "node:http";

export type FormValue = string | FormValue[] | { [key: string]: FormValue };
/** Decoded form parameters. */
export type Params = Record<string, FormValue>;
export type Json = Record<string, unknown>;
/** What a route answers: a status and Stripe's JSON. */
export type Reply = { status: number; body: Json };

const RESERVED_KEYS = new Set(["__proto__", "constructor", "prototype"]);
export const DAY_SEC = 86_400;

/** Decodes `a[b][0][c]=v` form bodies into nested objects and arrays, like Stripe's parser. */
export function parseForm(body: string): Params {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const segments = key.match(/^[^[\]]+|\[[^\]]*\]/g)?.map((s) => s.replace(/^\[|\]$/g, ""));
    if (!segments || segments.some((s) => RESERVED_KEYS.has(s))) continue;
    let node: Json = root;
    segments.forEach((segment, i) => {
      const name = segment === "" ? String(Object.keys(node).length) : segment;
      if (i === segments.length - 1) node[name] = value;
      else {
        node[name] ??= {};
        node = node[name] as Json;
      }
    });
  }
  return arrayify(root) as Params;
}

function arrayify(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value as Json).map(([k, v]) => [k, arrayify(v)] as const);
  const isList = entries.length > 0 && entries.every(([k], i) => k === String(i));
  return isList ? entries.map(([, v]) => v) : Object.fromEntries(entries);
}

export const fail = (status: number, message: string, extra: Json = {}): Reply => ({
  status,
  body: { error: { type: "invalid_request_error", message, ...extra } },
});
export const missing = (kind: string, id: string, param: string) =>
  fail(404, `No such ${kind}: '${id}'`, { code: "resource_missing", param });
export const badParam = (param: string, message: string) => fail(400, message, { param });
export const ok = (body: Json): Reply => ({ status: 200, body: structuredClone(body) });
export const str = (v: FormValue | undefined) => (typeof v === "string" ? v : undefined);
export const int = (v: FormValue | undefined) =>
  typeof v === "string" && /^\d+$/.test(v) ? +v : NaN;
export const obj = (v: FormValue | undefined): Params =>
  typeof v === "object" && !Array.isArray(v) ? v : {};

/** Stripe's checks on a one-off payment session: mode, line items, total, URLs, expiry. */
export function checkSession(
  p: Params,
  nowSec: number,
): Reply | { total: number; currency: string } {
  if (p.mode !== "payment") return badParam("mode", "The fake supports only mode=payment");
  const items = Array.isArray(p.line_items) ? p.line_items : [];
  if (!items.length) return badParam("line_items", "Missing required param: line_items.");
  let total = 0;
  for (const [i, item] of items.entries()) {
    const price = obj(obj(item).price_data);
    const [unit, quantity] = [int(price.unit_amount), int(obj(item).quantity)];
    if (
      !str(price.currency) ||
      !str(obj(price.product_data).name) ||
      !(unit >= 0 && quantity >= 1)
    ) {
      const what = "needs price_data (currency, unit_amount, product_data.name) and quantity";
      return badParam(`line_items[${i}]`, `line_items[${i}] ${what}`);
    }
    total += unit * quantity;
  }
  const currency = str(obj(obj(items[0]).price_data).currency) ?? "";
  if (total < 50) {
    return fail(400, `The Checkout Session's total amount due must add up to at least $0.50 usd`);
  }
  if (!str(p.success_url)) return badParam("success_url", "Missing required param: success_url.");
  if (p.expires_at === undefined) return { total, currency };
  const expiresAt = int(p.expires_at);
  const early = Number.isNaN(expiresAt) || expiresAt < nowSec + 1800;
  if (early || expiresAt > nowSec + DAY_SEC) {
    const bound = early ? "at least 30 minutes" : "less than 24 hours";
    const message = `The \`expires_at\` timestamp must be ${bound} from Checkout Session creation.`;
    return badParam("expires_at", message);
  }
  return { total, currency };
}

const MAX_BODY_BYTES = 1 << 20;

/** A request header's first value. */
export function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A request's body as text, refused past 1 MiB. */
export async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error("request body too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
