/**
 * POST /mcp's body as it arrives over a real socket: the route takes a small body of known size
 * straight from Node's stream when all of it is there (src/http/buffered-body.ts) and reads it
 * as usual otherwise. Each way must give the same answer: one packet, a body that comes after
 * a pause, a character split between packets, chunked bodies, and bodies over the limit.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JSON_BODY_MAX_BYTES } from "../../src/domain/limits.js";
import { apiOnlyFeatures, type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
let key: string;
let port: number;
beforeAll(async () => {
  s = await serveTestApp({ features: apiOnlyFeatures() });
  const owner = await s.t.newWallet(700);
  key = (await s.t.newAgentKey(owner.key, 300)).key;
  port = Number(new URL(s.url).port);
});
afterAll(() => s.close());

const call = (id: string | number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "get_balance", arguments: {} },
  });

function head(extra: string[]): string {
  return [
    "POST /mcp HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    `Authorization: Bearer ${key}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    "MCP-Protocol-Version: 2025-11-25",
    ...extra,
    "",
    "",
  ].join("\r\n");
}

interface Answer {
  status: number;
  body: string;
}

/** A connection that sends raw bytes and reads whole answers (Content-Length framed). */
function connection() {
  const socket = net.connect(port, "127.0.0.1");
  let buffered = Buffer.alloc(0);
  let waiting: (() => void) | undefined;
  socket.on("data", (d) => {
    buffered = Buffer.concat([buffered, d]);
    waiting?.();
  });
  const answer = async (): Promise<Answer> => {
    for (;;) {
      const end = buffered.indexOf("\r\n\r\n");
      if (end >= 0) {
        const headers = buffered.subarray(0, end).toString("latin1");
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(headers)?.[1] ?? Number.NaN);
        if (buffered.length >= end + 4 + length) {
          const body = buffered.subarray(end + 4, end + 4 + length).toString("utf8");
          buffered = buffered.subarray(end + 4 + length);
          return { status: Number(headers.split(" ")[1]), body };
        }
      }
      await new Promise<void>((resolve, reject) => {
        waiting = resolve;
        socket.once("close", () => reject(new Error(`closed; got ${buffered.toString()}`)));
      });
    }
  };
  const send = (bytes: string | Buffer) =>
    new Promise<void>((resolve) => socket.write(bytes, () => resolve()));
  return { send, answer, close: () => socket.destroy() };
}

const pause = () => new Promise((r) => setTimeout(r, 30));

function balanceOf(a: Answer, id: string | number) {
  expect(a.status).toBe(200);
  const message = JSON.parse(a.body);
  expect(message.id).toBe(id);
  expect(message.result.structuredContent.wallet.balance_cents).toBe(700);
}

describe("POST /mcp bodies as they arrive", () => {
  it("headers and body in one packet, twice on one connection", async () => {
    const c = connection();
    for (const id of [1, "é✓ 2"]) {
      const body = Buffer.from(call(id));
      await c.send(Buffer.concat([Buffer.from(head([`Content-Length: ${body.length}`])), body]));
      balanceOf(await c.answer(), id);
    }
    c.close();
  });

  it("a body that comes after the headers, a character split between two packets", async () => {
    const c = connection();
    const body = Buffer.from(call("naïve ✓"));
    const split = body.indexOf(Buffer.from("✓")) + 1;
    await c.send(head([`Content-Length: ${body.length}`]));
    await pause();
    await c.send(body.subarray(0, split));
    await pause();
    await c.send(body.subarray(split));
    balanceOf(await c.answer(), "naïve ✓");
    // The connection still serves the next call.
    await c.send(Buffer.concat([Buffer.from(head([`Content-Length: ${body.length}`])), body]));
    balanceOf(await c.answer(), "naïve ✓");
    c.close();
  });

  it("a chunked body", async () => {
    const c = connection();
    const body = call(7);
    const half = Math.floor(body.length / 2);
    const chunk = (part: string) => `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`;
    await c.send(head(["Transfer-Encoding: chunked"]) + chunk(body.slice(0, half)));
    await pause();
    await c.send(`${chunk(body.slice(half))}0\r\n\r\n`);
    balanceOf(await c.answer(), 7);
    c.close();
  });

  it("bodies over the limit are refused 413, whether their size is said or not", async () => {
    const big = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_balance","arguments":{},"_meta":{"pad":"${"x".repeat(JSON_BODY_MAX_BYTES)}"}}}`;
    const sized = connection();
    await sized.send(head([`Content-Length: ${big.length}`]) + big);
    const a = await sized.answer();
    expect(a.status).toBe(413);
    expect(JSON.parse(a.body).code).toBe("too_large");
    sized.close();

    const chunked = connection();
    await chunked.send(
      `${head(["Transfer-Encoding: chunked"])}${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`,
    );
    const b = await chunked.answer();
    expect(b.status).toBe(413);
    expect(JSON.parse(b.body).code).toBe("too_large");
    chunked.close();
  });

  it("an empty or unreadable body is a JSON-RPC parse error, as before", async () => {
    const c = connection();
    await c.send(head(["Content-Length: 0"]));
    const empty = await c.answer();
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.body).error.code).toBe(-32700);
    await c.send(`${head(["Content-Length: 5"])}{"a":`);
    const broken = await c.answer();
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.body).error.code).toBe(-32700);
    c.close();
  });
});
