/**
 * No log line carries a capability (issue 21, item 6), over real HTTP: every line the server
 * writes during a session that handles keys, OAuth codes and tokens, signed upload and download
 * links — sent where they belong and where they do not (glued to a letter, in a query, inside
 * another URL, percent-encoded once and twice, base64, hex, JSON escapes) — is scanned for each
 * of those secrets in each of those encodings and for pieces of their random parts.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { createCode } from "../../src/oauth/tokens.js";
import { createConnectedApp } from "../../src/services/agent-keys.js";
import { pkce } from "../connected-apps/browserless.js";
import { capabilitiesIn, capturingLogger, encodingsOf } from "../log-scan.js";
import { jobBody, makeVideo } from "../restore/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";

const captured = capturingLogger();
let s: ServedApp;
let video: { path: string; sizeBytes: number };

beforeAll(async () => {
  s = await serveTestApp({
    features: [restoreFeature({ noExecutor: true }), mcpFeature(), connectedAppsFeature()],
    platform: (p) => ({ ...p, log: captured.log }),
  });
  video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-logscan-")), 1);
});
afterAll(async () => {
  await s?.close();
});

async function send(
  method: string,
  target: string,
  opts: { headers?: Record<string, string>; body?: BodyInit } = {},
) {
  const res = await fetch(target.startsWith("http") ? target : `${s.url}${target}`, {
    method,
    ...opts,
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
  let body: Record<string, any> = {};
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}
const json = (key?: string) => ({
  "content-type": "application/json",
  ...(key ? { authorization: `Bearer ${key}` } : {}),
});

describe("the server log", () => {
  it("carries no key, OAuth code or token, or signed link token, in any encoding", async () => {
    const secrets: { name: string; value: string; tail: string }[] = [];
    const keep = (name: string, value: string) => {
      const tail = /^(pmk|pak|kat|kar|kac)_/.test(value) ? value.slice(4) : value.slice(-43);
      secrets.push({ name, value, tail });
    };

    // Keys.
    const wallet = await send("POST", "/wallet", { headers: json(), body: "{}" });
    const pmk = wallet.body.key as string;
    keep("wallet key", pmk);
    const agent = await send("POST", "/wallet/keys", {
      headers: json(pmk),
      // A key that may spend without asking: this test is about the log, not the owner's yes.
      body: JSON.stringify({ limit_cents: 500, ask_before_spending: false }),
    });
    const pak = agent.body.key as string;
    keep("agent key", pak);

    // Signed links: an upload and a download of the job's file.
    await s.t.deps.db
      .updateTable("wallets")
      .set({ balance_cents: 5000 })
      .where("id", "=", wallet.body.wallet.wallet_id)
      .execute();
    const job = await send("POST", "/cloud/jobs", {
      headers: json(pak),
      body: JSON.stringify(jobBody(video)),
    });
    expect(job.status, JSON.stringify(job.body)).toBe(200);
    const uploadUrl = job.body.upload_url as string;
    keep("upload link token", uploadUrl.split("/").pop() as string);
    const put = await send("PUT", uploadUrl, {
      headers: job.body.upload_headers,
      body: readFileSync(video.path),
    });
    expect(put.status).toBe(200);
    const row = await s.t.deps.db
      .selectFrom("restore_jobs")
      .select("input_key")
      .where("id", "=", job.body.job.id)
      .executeTakeFirstOrThrow();
    const downloadUrl = await s.t.deps.storage.presignDownload(row.input_key, {
      expiresInSec: 600,
    });
    keep("download link token", downloadUrl.split("/").pop() as string);
    expect((await send("GET", downloadUrl)).status).toBe(200);
    expect((await send("HEAD", downloadUrl)).status).toBe(200);

    // OAuth: a code, and the access and refresh tokens it is exchanged for.
    const redirectUri = "http://127.0.0.1:9/callback";
    const reg = await send("POST", "/oauth/register", {
      headers: json(),
      body: JSON.stringify({ client_name: "Scan", redirect_uris: [redirectUri] }),
    });
    const app = await createConnectedApp(s.t.deps, wallet.body.wallet.wallet_id, {
      clientId: reg.body.client_id,
      clientName: "Scan",
      redirectHost: "127.0.0.1",
      limitCents: 100,
      askBeforeSpending: true,
    });
    const { verifier, challenge } = pkce();
    const code = await createCode(s.t.deps, {
      clientId: reg.body.client_id,
      agentKeyId: app.id,
      redirectUri,
      codeChallenge: challenge,
      resource: `${s.url}/mcp`,
    });
    keep("OAuth code", code);
    const form = (q: Record<string, string>) => ({
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(q).toString(),
    });
    const tokens = await send(
      "POST",
      "/oauth/token",
      form({
        grant_type: "authorization_code",
        client_id: reg.body.client_id,
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        resource: `${s.url}/mcp`,
      }),
    );
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    keep("access token", tokens.body.access_token);
    keep("refresh token", tokens.body.refresh_token);
    const mcp = await send("POST", "/mcp", {
      headers: {
        ...json(tokens.body.access_token),
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(200);

    // Every secret where it does not belong: glued to a letter, in a query under an innocent
    // name, in a path, inside another URL, and in every encoding the scan looks for.
    for (const { value } of secrets) {
      await send("GET", `/wallet?x=a${value}`);
      await send("GET", `/mcp?key=${value}`);
      await send("GET", `/cloud/jobs/${value}`);
      await send("GET", `/nowhere/a${value}/b`);
      for (const form of encodingsOf(value)) {
        await send("GET", `/cloud/quote?q=${encodeURIComponent(form)}`);
        await send("GET", `/cloud/quote?q=x${form}`);
      }
    }
    for (const url of [uploadUrl, downloadUrl]) {
      await send("GET", `/cloud/quote?next=${encodeURIComponent(url)}`);
      await send("GET", `/cloud/quote?next=${encodeURIComponent(encodeURIComponent(url))}`);
    }
    await send("GET", `/oauth/authorize?client_id=${reg.body.client_id}&code=${code}`);

    const lines = captured.lines;
    expect(lines.length).toBeGreaterThan(secrets.length * 18);
    expect(capabilitiesIn(lines, secrets)).toEqual([]);
    // The figures the report quotes.
    console.log(
      `log scan: ${lines.length} lines × ${secrets.length} capabilities × ${encodingsOf(pmk).length + 2} forms, none found`,
    );
  });
});
