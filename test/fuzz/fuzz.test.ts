/**
 * A bounded, seeded, schema-driven fuzzer over every operation in /openapi.json: wrong types,
 * missing and extra fields, extreme numbers, unicode and NUL, long strings, bad JSON, wrong
 * content types, other tenants' ids and reused Idempotency-Keys. It asserts no 5xx, a JSON
 * error with a `detail` for every refusal, no 2xx on another tenant's resource, and that no
 * refused request changed any money or row. FUZZ_SEED replays a run; FUZZ_MS bounds it.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isErrorCode } from "../../src/domain/error-codes.js";
import { FEATURES } from "../../src/features.js";
import { ADMIN_TOKEN, createTestApp, type TestApp } from "../app.js";
import {
  mutate,
  NASTY_STRINGS,
  RAW_BODIES,
  type Rng,
  resolve,
  rng,
  type Schema,
  valueFor,
} from "./generate.js";

const WORKER_TOKEN = "fuzz-worker-token-0123456789";
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000_007);
const BUDGET_MS = Number(process.env.FUZZ_MS ?? 15_000);

let t: TestApp;
let doc: Schema;
let ops: { method: string; path: string; op: Schema }[];
const creds: Record<string, string> = {};
const ids: { own: Record<string, string>; other: Record<string, string> } = { own: {}, other: {} };

beforeAll(async () => {
  t = await createTestApp({ features: FEATURES, env: { WORKER_TOKEN } });
  doc = (await t.call("GET", "/openapi.json")).body;
  ops = Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(
    ([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })),
  );
  const me = await t.newWallet(50_000);
  const agent = await t.newAgentKey(me.key, 5_000);
  const other = await t.newWallet(50_000);
  const otherAgent = await t.newAgentKey(other.key, 5_000);
  Object.assign(creds, {
    wallet: me.key,
    agent: agent.key,
    otherAgent: otherAgent.key,
    admin: ADMIN_TOKEN,
    worker: WORKER_TOKEN,
  });
  ids.own = { wal: me.walletId, key: agent.id, ...(await resources(agent.key)) };
  ids.other = { wal: other.walletId, key: otherAgent.id, ...(await resources(otherAgent.key)) };
});
afterAll(async () => {
  await t.close();
});

/** A restore job and a clip made by `key`, to aim ids at. */
async function resources(key: string) {
  const job = await t.call("POST", "/cloud/jobs", {
    key,
    body: { duration_sec: 30, filename: "a.mp4", content_type: "video/mp4", size: 1000 },
  });
  const clip = await t.call("POST", "/motion/jobs", {
    key,
    body: { prompt: "waves", content_type: "image/png", image_bytes: 100 },
  });
  return { rj: job.body.job.id as string, clip: clip.body.job.id as string };
}

/** Everything money or rows could change: compared around every refused request. */
async function snapshot() {
  const r = await sql<Record<string, number>>`SELECT
    (SELECT COALESCE(SUM(balance_cents), 0) FROM wallets) AS balances,
    (SELECT COALESCE(SUM(spent_cents), 0) FROM agent_keys) AS spent,
    (SELECT count(*) FROM ledger_entries) AS entries,
    (SELECT count(*) FROM wallets) AS wallets,
    (SELECT count(*) FROM agent_keys) AS keys,
    (SELECT count(*) FROM agent_keys WHERE revoked_at IS NOT NULL) AS revoked,
    (SELECT count(*) FROM restore_jobs) AS jobs,
    (SELECT count(*) FROM clips) AS clips,
    (SELECT string_agg(status, ',' ORDER BY id) FROM restore_jobs) AS job_states,
    (SELECT string_agg(status, ',' ORDER BY id) FROM clips) AS clip_states`.execute(t.deps.db);
  return r.rows[0];
}

/** encodeURIComponent, with a lone surrogate sent as the raw (invalid UTF-8) bytes it stands for. */
function encode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return "%ED%A0%80";
  }
}

function pathFor(path: string, r: Rng): { url: string; foreign: boolean } {
  let foreign = false;
  const url = path.replace(/\{[^}]+\}/g, () => {
    const choice = r.int(4);
    if (choice === 0) {
      foreign = true;
      return r.pick(Object.values(ids.other));
    }
    if (choice === 1) return r.pick(Object.values(ids.own));
    return encode(r.pick(NASTY_STRINGS).slice(0, 300)) || "x";
  });
  return { url, foreign };
}

interface Built {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  foreign: boolean;
  cred: string;
}

function build(op: { method: string; path: string; op: Schema }, r: Rng): Built {
  const { url, foreign } = pathFor(op.path, r);
  const query = (op.op.parameters ?? []).filter((p: Schema) => p.in === "query");
  const qs = query
    .filter(() => r.chance(0.7))
    .map((p: Schema) => {
      // A long-poll would spend the time budget waiting: keep waits to a second.
      if (p.name === "wait") return `wait=${r.pick(["0", "1", "-1", "26", "x", "1.5"])}`;
      const v = r.chance(0.5) ? valueFor(doc, p.schema, r) : r.pick(NASTY_STRINGS).slice(0, 50);
      return `${p.name}=${encode(String(v))}`;
    });
  const cred = r.pick(["none", "wallet", "agent", "otherAgent", "admin", "worker", "junk"]);
  const headers: Record<string, string> = {};
  // Headers carry only visible Latin-1 on the wire (HTTP refuses the rest before we see it).
  const junk = r
    .pick(NASTY_STRINGS)
    .slice(0, 80)
    .replace(/[^\x20-\x7e]/g, "?");
  if (cred === "junk") headers.authorization = `Bearer ${junk}`;
  else if (cred !== "none") headers.authorization = `Bearer ${creds[cred]}`;
  if (r.chance(0.3)) headers["idempotency-key"] = `fuzz-${r.int(5)}`;
  const media = op.op.requestBody?.content?.["application/json"];
  let body: string | undefined;
  if (media || (op.method === "post" && r.chance(0.3))) {
    const roll = r.int(10);
    if (roll === 0) body = r.pick(RAW_BODIES);
    else {
      const value = valueFor(doc, resolve(doc, media?.schema ?? {}), r);
      // The worker claim's wait_ms is a long-poll like ?wait= (a valid 20000 waits 20 s for
      // work that never comes here): keep it to a second, as the query's wait is kept.
      const claim = value as { wait_ms?: unknown } | null;
      if (claim && typeof claim.wait_ms === "number" && claim.wait_ms > 1000) claim.wait_ms = 1000;
      body = JSON.stringify(roll < 4 ? value : mutate(value, r));
    }
    headers["content-type"] = r.chance(0.9)
      ? "application/json"
      : r.pick(["text/plain", "multipart/form-data"]);
  }
  const full = qs.length > 0 ? `${url}?${qs.join("&")}` : url;
  return { method: op.method.toUpperCase(), url: full, headers, body, foreign, cred };
}

/** 503 is the honest answer only where a feature is off here (USDC top-ups and refunds). */
const mayBeOff = (path: string) =>
  path === "/wallet/topup/crypto" || path === "/admin/wallets/{id}/usdc-refund";

describe(`fuzzing every operation (FUZZ_SEED=${SEED})`, () => {
  it(
    "never answers 5xx, always explains a refusal, and a refusal changes nothing",
    async () => {
      const r = rng(SEED);
      const deadline = Date.now() + BUDGET_MS;
      let requests = 0;
      while (Date.now() < deadline) {
        const op = r.pick(ops);
        const req = build(op, r);
        const before = await snapshot();
        const res = await t.app.request(req.url, {
          method: req.method,
          headers: req.headers,
          body: req.body,
        });
        const text = await res.text();
        const where = `FUZZ_SEED=${SEED} request ${requests}: ${req.method} ${req.url.slice(0, 200)} as ${req.cred} body=${(req.body ?? "").slice(0, res.status >= 500 ? 4000 : 200)} → ${res.status} ${text.slice(0, 300)}`;
        requests++;
        if (res.status === 503 && mayBeOff(op.path)) continue;
        expect(res.status, where).toBeLessThan(500);
        if (res.status >= 400) {
          let parsed: { detail?: unknown; code?: unknown; request_id?: unknown } = {};
          try {
            parsed = JSON.parse(text);
          } catch {}
          if (op.path === "/mcp" && (parsed as { jsonrpc?: unknown }).jsonrpc === "2.0") {
            // The MCP transport's own refusals (media type, protocol) are JSON-RPC errors.
            expect(typeof (parsed as { error?: { message?: unknown } }).error?.message, where).toBe(
              "string",
            );
          } else {
            expect(typeof parsed.detail, where).toBe("string");
            expect(isErrorCode(parsed.code), `code: ${where}`).toBe(true);
            expect(typeof parsed.request_id, where).toBe("string");
          }
          expect(await snapshot(), where).toEqual(before);
        }
        const keyed = op.op.security?.some((s: Schema) => "bearer" in s);
        if (req.foreign && keyed && ["wallet", "agent"].includes(req.cred)) {
          expect(res.status >= 200 && res.status < 300, `another tenant's resource: ${where}`).toBe(
            false,
          );
        }
      }
      console.log(`fuzz: ${requests} requests in ${BUDGET_MS} ms (FUZZ_SEED=${SEED})`);
      expect(requests).toBeGreaterThan(100);
    },
    BUDGET_MS + 60_000,
  );
});
