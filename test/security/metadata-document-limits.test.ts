/**
 * Metadata-document fetches are bounded and say nothing about their target (issue 21, item 2),
 * over real HTTP through the seam the suite uses for a public https host (a local TLS server
 * resolved as apps.example.test): GET /oauth/authorize with a URL client_id counts against the
 * per-address new-client bucket (429 + Retry-After); a failure is cached (20 requests, one
 * fetch, fetched again after the cache time); a document no connected app uses is purged once
 * stale while one in use stays; and the error page (in Chromium) reads the same for a 404, a
 * 500, a closed port and a non-TLS service, never echoing what was served.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { METADATA_CACHE_MS, METADATA_FAILURE_CACHE_MS } from "../../src/oauth/clients.js";
import { purgeExpiredOAuth } from "../../src/oauth/tokens.js";
import { createConnectedApp } from "../../src/services/agent-keys.js";
import { hasChromium, launchChromium } from "../browser.js";
import { pkce } from "../connected-apps/browserless.js";
import { type ServedApp, serveTestApp } from "../served.js";

const HOST = "apps.example.test";
const REDIRECT = "http://127.0.0.1:8765/callback";
const BANNER = "SSH-2.0-OpenSSH_9.6 internal-banner";
let tls: Server;
let plain: HttpServer;
let base = "";
let plainPort = 0;
let closedPort = 0;
const fetched = new Map<string, number>();
let s: ServedApp;
let limited: ServedApp;
let browser: Browser;

function selfSigned(host: string): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-cimd-sec-"));
  try {
    const [key, cert] = [path.join(dir, "k.pem"), path.join(dir, "c.pem")];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-subj",
        `/CN=${host}`,
        "-addext",
        `subjectAltName=DNS:${host}`,
        "-days",
        "1",
      ],
      { stdio: "ignore" },
    );
    return { key: readFileSync(key), cert: readFileSync(cert) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const listen = (server: HttpServer | Server) =>
  new Promise<number>((r) =>
    server.listen(0, "127.0.0.1", () => r((server.address() as AddressInfo).port)),
  );

beforeAll(async () => {
  const pair = selfSigned(HOST);
  tls = createServer(pair, (req, res) => {
    const p = req.url ?? "";
    fetched.set(p, (fetched.get(p) ?? 0) + 1);
    if (p.startsWith("/good") || p.startsWith("/used")) {
      res.setHeader("content-type", "application/json");
      return res.end(
        JSON.stringify({ client_id: `${base}${p}`, client_name: "Doc", redirect_uris: [REDIRECT] }),
      );
    }
    if (p === "/banner") {
      res.setHeader("content-type", "application/json");
      return res.end(BANNER);
    }
    res.statusCode = p === "/boom" ? 500 : 404;
    res.end(BANNER);
  });
  base = `https://${HOST}:${await listen(tls)}`;
  plain = createHttpServer((_q, res) => res.end(BANNER));
  plainPort = await listen(plain);
  const probe = createHttpServer();
  closedPort = await listen(probe);
  await new Promise((r) => probe.close(r));

  const metadataFetch = {
    lookup: async () => [{ address: "127.0.0.1", family: 4 as const }],
    allowPrivateForTests: (a: string) => a === "127.0.0.1",
    caForTests: pair.cert,
  };
  s = await serveTestApp({ features: [connectedAppsFeature({ metadataFetch })] });
  limited = await serveTestApp({
    features: [connectedAppsFeature({ metadataFetch })],
    env: { RATE_LIMITS: "on", RATE_LIMIT_REGISTER_PER_HOUR: "5" },
  });
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await limited?.close();
  tls.closeAllConnections();
  await new Promise((r) => tls.close(r));
  await new Promise((r) => plain.close(r));
});

function authorizeUrl(app: ServedApp, clientId: string): string {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    state: "s",
    resource: `${app.url}/mcp`,
  });
  return `${app.url}/oauth/authorize?${q}`;
}

describe("metadata-document authorization requests", () => {
  it("are under the per-address new-client rate rule: 429 with Retry-After", async () => {
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 8; i++) {
      const res = await fetch(authorizeUrl(limited, `${base}/good-${i}.json`));
      await res.text();
      statuses.push(res.status);
      if (res.status === 429) refused ??= res;
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
    // Refused requests fetched nothing.
    expect(fetched.get("/good-5.json")).toBeUndefined();
  });

  it("cache a failure: 20 requests, one fetch; fetched again after the failure cache time", async () => {
    for (let i = 0; i < 20; i++) {
      const res = await fetch(authorizeUrl(s, `${base}/missing.json`));
      expect(res.status).toBe(400);
      await res.text();
    }
    expect(fetched.get("/missing.json")).toBe(1);
    s.t.clock.advance(METADATA_FAILURE_CACHE_MS + 1000);
    await (await fetch(authorizeUrl(s, `${base}/missing.json`))).text();
    expect(fetched.get("/missing.json")).toBe(2);
  });

  it("store no lasting client for a request that went nowhere: unused documents are purged once stale", async () => {
    for (const name of ["/good-unused.json", "/used.json"]) {
      expect((await fetch(authorizeUrl(s, `${base}${name}`))).status).toBe(200);
    }
    const { walletId } = await s.t.newWallet(0);
    await createConnectedApp(s.t.deps, walletId, {
      clientId: `${base}/used.json`,
      clientName: "Doc",
      redirectHost: "127.0.0.1",
      limitCents: 100,
      askBeforeSpending: true,
    });
    const ids = async () =>
      (
        await s.t.deps.db
          .selectFrom("oauth_clients")
          .select("id")
          .where("kind", "=", "metadata_document")
          .execute()
      )
        .map((r) => r.id.replace(base, ""))
        .sort();
    expect(await ids()).toEqual(["/good-unused.json", "/used.json"]);
    await purgeExpiredOAuth(s.t.deps);
    expect(await ids()).toHaveLength(2); // still within the cache time
    s.t.clock.advance(METADATA_CACHE_MS + 60_000);
    await purgeExpiredOAuth(s.t.deps);
    expect(await ids()).toEqual(["/used.json"]);
  });
});

describe.skipIf(!hasChromium)("the error page of a metadata document that cannot be used", () => {
  it("reads the same for a 404, a 500, a closed port and a non-TLS service, and echoes nothing", async () => {
    const page = await browser.newPage();
    const textOf = async (clientId: string) => {
      const res = await page.goto(authorizeUrl(s, clientId));
      expect(res?.status()).toBe(400);
      return page.locator("#problem").textContent();
    };
    const unreachable = [
      `${base}/nothing-here.json`,
      `${base}/boom`,
      `https://${HOST}:${closedPort}/client.json`,
      `https://${HOST}:${plainPort}/client.json`,
    ];
    const texts = [];
    for (const id of unreachable) texts.push(await textOf(id));
    expect(new Set(texts).size).toBe(1);
    expect(texts[0]).toMatch(/could not fetch the app's metadata/);
    const invalid = await textOf(`${base}/banner`);
    expect(invalid).toMatch(/could not fetch the app's metadata/);
    for (const text of [...texts, invalid]) {
      expect(text).not.toMatch(/SSH|banner|404|500|ECONN|TLS|SSL|refused|timed? ?out|status/i);
    }
    await page.close();
  });
});
