/**
 * The uploader's lanes: with a fetch of its own (reports do not hold a lane; a refused report
 * stops the upload), and against a store over real HTTP (node:http on 127.0.0.1, the SDK's own
 * PUT of a file's range): a lane sends its next part while the store has not yet answered the
 * last one, holds at most one such part, and a part the store refuses after its body arrived
 * stops the upload at once, with that refusal.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { KinoraError } from "./errors.js";
import type { PartsState, PartsTransport } from "./upload-parts.js";
import { uploadParts } from "./upload-parts.js";

const PART = 1024;

/** A plan of `count` parts of `PART` bytes, nothing arrived, CRC32. */
function plan(count: number): PartsState {
  return {
    status: "open",
    size_bytes: count * PART,
    part_size_bytes: PART,
    part_count: count,
    checksum: "crc32",
    parts: [],
  };
}

/** A store that answers every PUT with an ETag, recording the part numbers in the order sent. */
function store() {
  const puts: number[] = [];
  const fetch = (async (url: string) => {
    puts.push(Number(new URL(url).searchParams.get("part")));
    return new Response(null, { status: 200, headers: { etag: `"e${puts.length}"` } });
  }) as typeof globalThis.fetch;
  return { puts, fetch };
}

function transport(
  state: PartsState,
  report: PartsTransport["report"],
): PartsTransport & { links: PartsTransport["links"] } {
  return {
    state: async () => state,
    links: async (parts) =>
      parts.map((p) => ({
        part_number: p.part_number,
        size_bytes: PART,
        url: `http://store.invalid/put?part=${p.part_number}`,
        headers: {},
      })),
    report,
  };
}

/** Resolves once `check` holds, or fails after `ms` (what a lane stuck on a report would do). */
async function until(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("uploadParts lanes", () => {
  it("sends the lane's next part while the last one's report is still on its way", async () => {
    const { puts, fetch } = store();
    const held: (() => void)[] = [];
    const reported: number[] = [];
    const t = transport(plan(3), (part) => {
      reported.push(part.part_number);
      // Every report waits until all three parts are on the store.
      return new Promise<void>((resolve) => held.push(resolve));
    });
    const done = uploadParts(t, new Uint8Array(3 * PART), { concurrency: 1, fetch });
    await until(() => puts.length === 3);
    expect(puts).toEqual([1, 2, 3]);
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    // Sent, but not reported: the upload is not done until the server recorded every part.
    expect(finished).toBe(false);
    for (const release of held) release();
    await expect(done).resolves.toMatchObject({ sent: [1, 2, 3], had: [] });
    expect(reported.sort()).toEqual([1, 2, 3]);
  });

  it("stops at a report the server refuses, with its error, and sends no more parts", async () => {
    const { puts, fetch } = store();
    const refusal = new KinoraError("report part", 409, {
      code: "wrong_state",
      detail: "This job was cancelled and refunded; its parts were deleted.",
      request_id: "req_test",
    });
    const t = transport(plan(6), async (part) => {
      if (part.part_number === 1) throw refusal;
      await new Promise((r) => setTimeout(r, 50));
    });
    await expect(
      uploadParts(t, new Uint8Array(6 * PART), { concurrency: 1, fetch, maxRetries: 0 }),
    ).rejects.toBe(refusal);
    // Part 2 may have gone out while part 1's report was answered; nothing after the refusal.
    expect(puts.length).toBeLessThanOrEqual(2);
  });

  it("asks the next part's link while the current part is still being sent, once per part", async () => {
    const asked: number[] = [];
    let waitedInVain = false;
    const t = transport(plan(3), async () => {});
    const links = t.links;
    t.links = async (parts, signal) => {
      asked.push(...parts.map((p) => p.part_number));
      return links(parts, signal);
    };
    const fetch = (async (url: string) => {
      const n = Number(new URL(url).searchParams.get("part"));
      // Part 1 stays on the wire until part 2's link was asked (or it is clear it will not be).
      if (n === 1) await until(() => asked.includes(2), 1000).catch(() => (waitedInVain = true));
      return new Response(null, { status: 200, headers: { etag: `"e${n}"` } });
    }) as typeof globalThis.fetch;
    await expect(
      uploadParts(t, new Uint8Array(3 * PART), { concurrency: 1, fetch }),
    ).resolves.toMatchObject({ sent: [1, 2, 3] });
    expect(waitedInVain).toBe(false);
    expect(asked.sort()).toEqual([1, 2, 3]);
  });

  it("asks a part's link again when asking ahead failed", async () => {
    const { puts, fetch } = store();
    const t = transport(plan(3), async () => {});
    const links = t.links;
    let failures = 0;
    t.links = async (parts, signal) => {
      if (parts[0]?.part_number === 2 && failures++ === 0) throw new TypeError("fetch failed");
      return links(parts, signal);
    };
    await expect(
      uploadParts(t, new Uint8Array(3 * PART), { concurrency: 1, fetch }),
    ).resolves.toMatchObject({ sent: [1, 2, 3] });
    expect(puts).toEqual([1, 2, 3]);
    expect(failures).toBe(2);
  });
});

/** Parts of the HTTP tests: small, and large enough to outgrow the sockets' buffers. */
const HTTP_PART = 256 * 1024;
const COUNT = 4;
/**
 * Parts larger than the sockets' buffers can hold (send 4 MiB and receive up to 32 MiB here at
 * most), so a body the store stops reading stays partly unsent.
 */
const BIG_PART = 40 * 1024 * 1024;

let dir: string;
let file: string;
let bigFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kinora-lanes-"));
  file = join(dir, "tape.bin");
  await writeFile(file, randomBytes(COUNT * HTTP_PART));
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

let running: Store | null = null;
afterEach(async () => {
  const s = running;
  running = null;
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

function transportTo(s: Store, part = HTTP_PART, count = COUNT): PartsTransport {
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

describe("uploadParts lanes over HTTP", () => {
  it("sends a lane's next part before the store answered the last one, holding at most one unanswered", async () => {
    running = await holdingStore();
    const s = running;
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
    running = await holdingStore(new Set([2]));
    const s = running;
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
