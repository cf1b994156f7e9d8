import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../test/app.js";
import { createLogger, redact } from "./logger.js";

const KEY = "pmk_4f8HkQ2n9LrT1xZcV6bYpA4f8HkQ2n9LrT1xZcV6bYpA";
const SECRET_BODY = KEY.slice(4);

describe("redact", () => {
  const encodings = [
    KEY,
    KEY.replace("_", "%5F"),
    KEY.replace("_", "%5f"),
    KEY.replace("_", "%255F"),
    KEY.replace("pmk_", "%70%6D%6B%5F"),
    encodeURIComponent(KEY).replace(/[A-Za-z]/g, (ch) => `%${ch.charCodeAt(0).toString(16)}`),
    `pak_${SECRET_BODY}`,
  ];
  it.each(encodings)("removes a key written as %s", (form) => {
    for (const text of [`/cloud/jobs?x=${form}`, `/wallet/${form}/z`, `GET /?a=1&b=${form}&c=2`]) {
      const out = redact(text);
      expect(out).not.toContain(SECRET_BODY);
      expect(out).not.toContain(SECRET_BODY.slice(0, 12));
    }
  });

  it("removes key, token and code parameters whatever their value", () => {
    expect(redact("/mcp?key=abc&x=1&token=t0k&code=c0d")).toBe(
      "/mcp?key=[redacted]&x=1&token=[redacted]&code=[redacted]",
    );
  });

  it("leaves ordinary percent-encoded text alone", () => {
    expect(redact("/motion/quote?size=720p&q=a%20b")).toBe("/motion/quote?size=720p&q=a%20b");
  });
});

describe("a line whose fields cannot be written", () => {
  it("still goes out, saying why, when a field is nested too deep or circular", () => {
    const lines: string[] = [];
    const log = createLogger("info", { node: "n1" }, (line) => lines.push(line));
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => log.warn("deep", { value: deep })).not.toThrow();
    expect(() => log.error("circular", { value: circular })).not.toThrow();
    const [first, second] = lines.map((l) => JSON.parse(l));
    expect(first).toMatchObject({ level: "warn", msg: "deep" });
    expect(first.unwritten_fields).toMatch(/call stack/i);
    expect(second).toMatchObject({ level: "error", msg: "circular" });
    expect(second.unwritten_fields).toMatch(/circular/i);
  });
});

describe("access log", () => {
  const lines: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      platform: (p) => ({ ...p, log: createLogger("info", {}, (line) => lines.push(line)) }),
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it("never carries a key that came in the URL, in any encoding", async () => {
    const { key } = await t.newWallet(0);
    const body = key.slice(4);
    await t.call("GET", `/wallet?x=${key.replace("_", "%5F")}`);
    await t.call("GET", `/wallet?key=${encodeURIComponent(key)}`);
    await t.call("GET", `/cloud/jobs/${key}`);
    await t.call("GET", "/wallet", { key });
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) expect(line).not.toContain(body.slice(0, 16));
  });
});
