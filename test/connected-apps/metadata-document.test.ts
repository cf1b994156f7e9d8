/**
 * A client known by its Client ID Metadata Document: client_id is an https URL, kinora fetches
 * the JSON there (through the SSRF-safe fetcher, size- and time-capped, no redirects) and
 * caches it; a document that does not name itself, or is too big, is refused.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from "../app.js";
import { authorizePath, browserless, pkce } from "./browserless.js";

const REDIRECT = "http://127.0.0.1:8765/callback";
let t: TestApp;
let server: Server;
let base = "";
let fetches = 0;
const docs = new Map<string, () => unknown>();

function selfSigned(host: string): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-cimd-"));
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

beforeAll(async () => {
  const pair = selfSigned("apps.example.test");
  server = createServer(pair, (req, res) => {
    fetches++;
    const doc = docs.get(req.url ?? "");
    if (!doc) {
      res.statusCode = 404;
      return res.end();
    }
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(doc()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `https://apps.example.test:${(server.address() as AddressInfo).port}`;
  t = await createTestApp({
    features: [
      connectedAppsFeature({
        metadataFetch: {
          lookup: async () => [{ address: "127.0.0.1", family: 4 }],
          allowPrivateForTests: (a) => a === "127.0.0.1",
          caForTests: pair.cert,
        },
      }),
    ],
  });
  docs.set("/good.json", () => ({
    client_id: `${base}/good.json`,
    client_name: "Metadata App",
    redirect_uris: [REDIRECT],
  }));
  docs.set("/liar.json", () => ({
    client_id: `${base}/someone-else.json`,
    client_name: "Liar",
    redirect_uris: [REDIRECT],
  }));
  docs.set("/huge.json", () => ({
    client_id: `${base}/huge.json`,
    client_name: "x".repeat(20_000),
    redirect_uris: [REDIRECT],
  }));
});
afterAll(async () => {
  await t.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const params = (clientId: string, challenge: string) => ({
  response_type: "code",
  client_id: clientId,
  redirect_uri: REDIRECT,
  code_challenge: challenge,
  code_challenge_method: "S256",
  state: "s",
  resource: `${TEST_PUBLIC_URL}/mcp`,
});

describe("Client ID Metadata Documents", () => {
  it("fetches the document, shows its name, exchanges the code for that client, and caches it", async () => {
    const { verifier, challenge } = pkce();
    const clientId = `${base}/good.json`;
    const b = browserless(t);
    const page = await b.get(authorizePath(params(clientId, challenge)));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Metadata App");
    await b.post("/oauth/authorize", { ...b.fields(html), action: "create" });
    const again = await b.get(authorizePath(params(clientId, challenge)));
    const decided = await b.post("/oauth/authorize", {
      ...b.fields(await again.text()),
      action: "allow",
      limit_dollars: "1",
    });
    const code = new URL(decided.headers.get("location") as string).searchParams.get(
      "code",
    ) as string;
    const res = await t.app.request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        resource: `${TEST_PUBLIC_URL}/mcp`,
      }).toString(),
    });
    expect(res.status).toBe(200);
    // Three authorization requests, one fetch: the document is cached.
    expect(fetches).toBe(1);
  });

  it("refuses a document that names another client_id, one too large, and one that is missing", async () => {
    const { challenge } = pkce();
    for (const doc of ["/liar.json", "/huge.json", "/missing.json"]) {
      const res = await t.app.request(authorizePath(params(`${base}${doc}`, challenge)));
      expect(res.status, doc).toBe(400);
      expect(res.headers.get("location")).toBeNull();
    }
  });

  it("never fetches a metadata document from a private address in production", async () => {
    const plain = await createTestApp({ features: [connectedAppsFeature()] });
    try {
      const { challenge } = pkce();
      const res = await plain.app.request(
        authorizePath(params("https://127.0.0.1:9/client.json", challenge)),
      );
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/cannot connect/);
    } finally {
      await plain.close();
    }
  });
});
