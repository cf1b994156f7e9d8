/**
 * The lanes of an upload in parts against a store over real HTTP (node:http on 127.0.0.1, the
 * SDK's own PUT of a file's range): a lane sends its next part while the store has not yet
 * answered the last one, holds at most one such part, and a part the store refuses after its
 * body arrived stops the upload at once, with that refusal.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PartsState, PartsTransport } from "./upload-parts.js";
import { uploadParts } from "./upload-parts.js";

const PART = 256 * 1024;
const COUNT = 4;
/** Parts larger than the kernel's socket buffers can hold, so a body the store stops reading stays unsent. */
const BIG_PART = 24 * 1024 * 1024;

let dir: string;
let file: string;
let bigFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kinora-lanes-"));
  file = join(dir, "tape.bin");
  await writeFile(file, randomBytes(COUNT * PART));
  bigFile = join(dir, "big.bin");
  await writeFile(bigFile, Buffer.alloc(2 * BIG_PART, 7));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the store saw, in order: a part's body complete (`body 2`), a part answered (`answer 2`). */
interface Store {
  url: string;
  events: string[];
  /** Answers part `n` (held until called) with `status`. */
  answer(n: number, status?: number): void;
  server: Server;
}

let store: Store | null = null;
afterEach(async () => {
  const s = store;
  store = null;
  if (!s) return;
  // Answers still held (a failed test) must not keep the server open.
  s.server.closeAllConnections();
  await new Promise((r) => s.server.close(r));
});

/**
 * A store that reads each part's body whole, then holds its answer until told; the bodies of
 * `stalled` parts it never reads (a slow store: the client's writes wait on the socket).
 */
async function holdingStore(stalled: ReadonlySet<number> = new Set()): Promise<Store> {
  const events: string[] = [];
  const held = new Map<number, ServerResponse>();
  const early = new Map<number, number>();
  const reply = (res: ServerResponse, n: number, status: number) => {
    events.push(`answer ${n}`);
    res.writeHead(
      status,
      status === 200 ? { etag: `"e${n}"` } : { "content-type": "application/json" },
    );
    res.end(
      status === 200
        ? undefined
        : JSON.stringify({ detail: `part ${n} refused`, code: "too_large" }),
    );
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const n = Number(new URL(req.url ?? "/", "http://x").searchParams.get("part"));
    if (stalled.has(n)) {
      events.push(`stalled ${n}`);
      return;
    }
    req.on("data", () => {});
    req.on("end", () => {
      events.push(`body ${n}`);
      const status = early.get(n);
      if (status === undefined) held.set(n, res);
      else reply(res, n, status);
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    events,
    server,
    answer(n, status = 200) {
      const res = held.get(n);
      if (res) {
        held.delete(n);
        reply(res, n, status);
      } else {
        early.set(n, status);
      }
    },
  };
}

function transportTo(s: Store, part = PART, count = COUNT): PartsTransport {
  const state: PartsState = {
    status: "open",
    size_bytes: count * part,
    part_size_bytes: part,
    part_count: count,
    checksum: "crc32",
    parts: [],
  };
  return {
    state: async () => state,
    links: async (parts) =>
      parts.map((p) => ({
        part_number: p.part_number,
        size_bytes: part,
        url: `${s.url}/put?part=${p.part_number}`,
        headers: {},
      })),
    report: async () => {},
  };
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("uploadParts lanes over HTTP", () => {
  it("sends a lane's next part before the store answered the last one, holding at most one unanswered", async () => {
    store = await holdingStore();
    const s = store;
    const done = uploadParts(transportTo(s), file, { concurrency: 1 });
    // Part 1's answer is held: its lane sends part 2 meanwhile.
    await until(() => s.events.includes("body 2"));
    expect(s.events).toEqual(["body 1", "body 2"]);
    // Two unanswered parts: the lane waits for part 1's answer before part 3.
    await new Promise((r) => setTimeout(r, 150));
    expect(s.events).toEqual(["body 1", "body 2"]);
    s.answer(1);
    await until(() => s.events.includes("body 3"));
    for (const n of [2, 3, 4]) s.answer(n);
    await expect(done).resolves.toMatchObject({ sent: [1, 2, 3, 4], had: [] });
  });

  it("stops at once at a part the store refuses after its body arrived, even mid-way through the next", async () => {
    store = await holdingStore(new Set([2]));
    const s = store;
    const done = uploadParts(transportTo(s, BIG_PART, 2), bigFile, {
      concurrency: 1,
      maxRetries: 0,
    });
    const outcome = done.then(
      () => null,
      (err: unknown) => err,
    );
    // Part 1 arrived and awaits its answer; part 2's body is stuck on the wire (never read).
    await until(() => s.events.includes("stalled 2"));
    s.answer(1, 413);
    const err = await Promise.race([
      outcome,
      new Promise((r) => setTimeout(() => r("still sending part 2"), 2000)),
    ]);
    expect(err).toMatchObject({ status: 413, code: "too_large" });
  });
});
