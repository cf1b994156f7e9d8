import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { copyLimited, nodeChunks } from "./file-io.js";

/**
 * copyLimited reading a Node stream by its events (nodeChunks): what the local store's PUT and
 * part routes receive under @hono/node-server. The same answers as the iterator path gives.
 */
describe("copyLimited from a Node stream", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "kinora-file-io-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function copy(
    stream: PassThrough,
    expected: number,
    opts: { signal?: AbortSignal; position?: number; seen?: number[] } = {},
  ) {
    const file = path.join(dir, "out");
    const fh = await open(file, "w+");
    try {
      const outcome = await copyLimited(nodeChunks(stream), fh, expected, {
        durable: false,
        signal: opts.signal,
        position: opts.position,
        maxHeldBytes: 8,
        onChunk: (c) => opts.seen?.push(c.byteLength),
      });
      return { outcome, bytes: readFileSync(file) };
    } finally {
      await fh.close();
    }
  }

  it("writes exactly the expected bytes, in order, each chunk seen once", async () => {
    const s = new PassThrough();
    const seen: number[] = [];
    const done = copy(s, 10, { seen });
    s.write(Buffer.from("abcd"));
    s.write(Buffer.from("efg"));
    s.end(Buffer.from("hij"));
    const { outcome, bytes } = await done;
    expect(outcome).toEqual({ ok: true, bytes: 10 });
    expect(bytes.toString()).toBe("abcdefghij");
    expect(seen).toEqual([4, 3, 3]);
  });

  it("writes from `position` on (a part in place)", async () => {
    const s = new PassThrough();
    const done = copy(s, 3, { position: 2 });
    s.end(Buffer.from("xyz"));
    const { outcome, bytes } = await done;
    expect(outcome).toEqual({ ok: true, bytes: 3 });
    expect([...bytes]).toEqual([0, 0, 120, 121, 122]);
  });

  it("stops at the first byte too many: nothing of that chunk is written, the stream is paused, not destroyed", async () => {
    const s = new PassThrough();
    const done = copy(s, 5);
    s.write(Buffer.from("abc"));
    s.write(Buffer.from("def"));
    const { outcome, bytes } = await done;
    expect(outcome).toEqual({ ok: false, reason: "too_long", bytes: 6 });
    expect(bytes.toString()).toBe("abc");
    expect(s.destroyed).toBe(false);
    expect(s.isPaused()).toBe(true);
    expect(s.listenerCount("data")).toBe(0);
  });

  it("answers too_short when the stream ends early", async () => {
    const s = new PassThrough();
    const done = copy(s, 5);
    s.end(Buffer.from("ab"));
    expect((await done).outcome).toEqual({ ok: false, reason: "too_short", bytes: 2 });
  });

  it("rejects as the iterator does when the stream closes before its end (a client gone)", async () => {
    const s = new PassThrough();
    const done = copy(s, 5);
    s.write(Buffer.from("ab"));
    await new Promise((r) => setImmediate(r));
    s.destroy();
    await expect(done).rejects.toMatchObject({ code: "ERR_STREAM_PREMATURE_CLOSE" });
  });

  it("rejects with the stream's error", async () => {
    const s = new PassThrough();
    const done = copy(s, 5);
    while (s.listenerCount("error") === 0) await new Promise((r) => setImmediate(r));
    s.destroy(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
    await expect(done).rejects.toMatchObject({ code: "ECONNRESET" });
  });

  it("stops at once on abort, even while no chunk comes", async () => {
    const s = new PassThrough();
    const abort = new AbortController();
    const done = copy(s, 5, { signal: abort.signal });
    s.write(Buffer.from("ab"));
    await new Promise((r) => setImmediate(r));
    abort.abort(new Error("superseded"));
    await expect(done).rejects.toThrow("superseded");
    expect(s.listenerCount("data")).toBe(0);
  });

  it("pauses the stream while the writer holds too much and resumes it after: every byte arrives", async () => {
    const s = new PassThrough({ highWaterMark: 4 });
    const pause = vi.spyOn(s, "pause");
    const total = 4096;
    const done = copy(s, total);
    let paused = 0;
    for (let i = 0; i < total / 16; i++) {
      if (!s.write(Buffer.alloc(16, i))) {
        paused++;
        await new Promise((r) => s.once("drain", r));
      }
    }
    s.end();
    const { outcome, bytes } = await done;
    expect(outcome).toEqual({ ok: true, bytes: total });
    expect(bytes[0]).toBe(0);
    expect(bytes[total - 1]).toBe(total / 16 - 1);
    // The 8-byte cap made the reader pause the stream, and the source felt it.
    expect(pause).toHaveBeenCalled();
    expect(paused).toBeGreaterThan(0);
  });

  it("an empty stream that has already ended is 0 bytes", async () => {
    const s = new PassThrough();
    s.end();
    s.resume();
    await new Promise((r) => s.once("end", r));
    expect((await copy(s, 0)).outcome).toEqual({ ok: true, bytes: 0 });
  });
});
