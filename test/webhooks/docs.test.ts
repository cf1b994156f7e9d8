/**
 * The signature checks docs/webhooks.md shows, run as printed: the Node one imported, the Python
 * one run by python3 (skipped without it), each against a real delivery kinora sent — accepted
 * as sent, refused with the body altered by one byte or with another secret.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhooksFeature } from "../../src/features/webhooks.js";
import { newWebhookSecret } from "../../src/standard-webhooks.js";
import { createTestApp, type TestApp } from "../app.js";
import { type Received, startReceiver } from "./receiver.js";

const run = promisify(execFile);
const doc = readFileSync(path.resolve(import.meta.dirname, "../../docs/webhooks.md"), "utf8");
const block = (lang: string) => {
  const fence = "```";
  const m = doc.match(new RegExp(`${fence}${lang}\\n([\\s\\S]*?)${fence}`));
  if (!m?.[1]) throw new Error(`docs/webhooks.md has no ${lang} block`);
  return m[1];
};
const hasPython = await run("python3", ["--version"]).then(
  () => true,
  () => false,
);

const dir = mkdtempSync(path.join(tmpdir(), "kinora-webhook-docs-"));
let delivery: Received;
let secret: string;

beforeAll(async () => {
  const receiver = await startReceiver();
  const t: TestApp = await createTestApp({
    env: { WEBHOOK_ALLOW_HTTP_LOOPBACK: "true" },
    platform: (p) => ({ ...p, clock: () => new Date() }),
    features: [webhooksFeature({ kinds: [], pollMs: 50 })],
  });
  const task = await t.features.find((f) => f.name === "webhooks")?.start?.();
  try {
    const { key } = await t.newWallet(0);
    const ep = await t.call("POST", "/wallet/webhooks", { key, body: { url: receiver.url } });
    secret = ep.body.secret;
    await t.call("POST", `/wallet/webhooks/${ep.body.endpoint.id}/test`, { key });
    [delivery] = (await receiver.waitFor(1)) as [Received];
  } finally {
    await task?.stop();
    await receiver.close();
    await t.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/webhooks.md", () => {
  it("Node: the printed verifyKinora accepts a real delivery and refuses a forged one", async () => {
    const file = path.join(dir, "verify.mjs");
    writeFileSync(file, block("js"));
    const { verifyKinora } = await import(pathToFileURL(file).href);
    expect(verifyKinora(secret, delivery.headers, delivery.body).type).toBe("webhook.test");
    expect(() => verifyKinora(secret, delivery.headers, `${delivery.body} `)).toThrow(/signature/);
    expect(() => verifyKinora(newWebhookSecret(), delivery.headers, delivery.body)).toThrow();
  });

  it.skipIf(!hasPython)("Python: the printed verify_kinora does the same", async () => {
    writeFileSync(path.join(dir, "verify_kinora.py"), block("python"));
    const harness = `
import json, sys
from verify_kinora import verify_kinora
c = json.load(sys.stdin)
body = c["body"].encode()
print(verify_kinora(c["secret"], c["headers"], body)["type"])
for secret, raw in ((c["secret"], body + b" "), (c["other"], body)):
    try:
        verify_kinora(secret, c["headers"], raw)
        print("accepted")
    except ValueError:
        print("refused")
`;
    writeFileSync(path.join(dir, "harness.py"), harness);
    const input = JSON.stringify({
      secret,
      other: newWebhookSecret(),
      headers: delivery.headers,
      body: delivery.body,
    });
    const child = execFile("python3", ["harness.py"], { cwd: dir });
    child.stdin?.end(input);
    const out = await new Promise<string>((resolve, reject) => {
      let text = "";
      child.stdout?.on("data", (d) => {
        text += d;
      });
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}`))));
    });
    expect(out.trim().split("\n")).toEqual(["webhook.test", "refused", "refused"]);
  });
});
