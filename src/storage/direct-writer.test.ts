/**
 * Direct writes as `copyLimited` makes them: the bytes land exactly where they belong whichever
 * way they went (aligned slots past the page cache, the tail and any refused write through it),
 * every slot goes back to the pool, and a write's failure is the upload's.
 */
import { randomBytes } from "node:crypto";
import { type FileHandle, mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeSlotCount, SLOT_BYTES } from "./aligned-slots.js";
import { createDirectWriter, openDirect, SLOTS_PER_WRITER } from "./direct-writer.js";
import { copyLimited } from "./file-io.js";

let dir: string;
let directWorksHere = false;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kinora-direct-"));
  const probe = join(dir, "probe");
  await writeFile(probe, "");
  const fh = await openDirect(probe);
  directWorksHere = fh !== null;
  await fh?.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `bytes` cut into chunks of uneven sizes, as sockets hand them over. */
function* unevenChunks(bytes: Buffer): Generator<Buffer> {
  const sizes = [1000, 65536, 7, 300_000, 65536, 12345];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    // cast: the index is taken modulo the array's length
    const n = Math.min(sizes[i % sizes.length] as number, bytes.length - at);
    yield bytes.subarray(at, at + n);
    at += n;
  }
}

async function* chunksOf(bytes: Buffer): AsyncIterable<Uint8Array> {
  yield* unevenChunks(bytes);
}

/** A direct handle whose writes are counted, or made to fail with `code`. */
function spied(fh: FileHandle, fail?: string): { fh: FileHandle; bytes: () => number } {
  let bytes = 0;
  const wrapper = {
    writev: async (buffers: NodeJS.ArrayBufferView[], position?: number) => {
      if (fail) throw Object.assign(new Error(`${fail}: refused`), { code: fail });
      const out = await fh.writev(buffers, position);
      bytes += out.bytesWritten;
      return out;
    },
    close: () => fh.close(),
  };
  // cast: copyLimited's direct writer calls writev alone on this handle
  return { fh: wrapper as unknown as FileHandle, bytes: () => bytes };
}

async function writeWith(
  path: string,
  payload: Buffer,
  opts: { position?: number; fail?: string; truncateTo?: number } = {},
) {
  const fh = await open(path, "r+");
  const real = await openDirect(path);
  const direct = real ? spied(real, opts.fail) : null;
  try {
    const outcome = await copyLimited(chunksOf(payload), fh, payload.length, {
      durable: true,
      position: opts.position,
      direct: direct?.fh ?? null,
    });
    await fh.sync();
    return { outcome, directBytes: direct?.bytes() ?? 0 };
  } finally {
    await direct?.fh.close();
    await fh.close();
  }
}

describe("direct writes", () => {
  it("lands every byte of an upload that does not fill its last slot, the slots past the page cache", async () => {
    const path = join(dir, "whole");
    await writeFile(path, "");
    const payload = randomBytes(3 * SLOT_BYTES + 12_345);
    const before = freeSlotCount();
    const { outcome, directBytes } = await writeWith(path, payload);
    expect(outcome).toEqual({ ok: true, bytes: payload.length });
    expect((await readFile(path)).equals(payload)).toBe(true);
    if (directWorksHere) expect(directBytes).toBe(3 * SLOT_BYTES);
    expect(freeSlotCount()).toBeGreaterThanOrEqual(before);
  });

  it("shows the checksum every byte in order, each chunk as it is staged", async () => {
    const path = join(dir, "hashed");
    await writeFile(path, "");
    const payload = randomBytes(2 * SLOT_BYTES + 777);
    const fh = await open(path, "r+");
    const direct = await openDirect(path);
    const seen: Buffer[] = [];
    try {
      await copyLimited(chunksOf(payload), fh, payload.length, {
        durable: true,
        direct,
        onChunk: (c) => seen.push(Buffer.from(c)),
      });
    } finally {
      await direct?.close();
      await fh.close();
    }
    expect(Buffer.concat(seen).equals(payload)).toBe(true);
    // Each chunk, split only where a slot ends: no call spans two slots.
    const chunkSizes = [...unevenChunks(payload)].map((c) => c.length);
    expect(seen.length).toBeGreaterThanOrEqual(chunkSizes.length);
    expect(seen.length).toBeLessThanOrEqual(chunkSizes.length + 2);
    if (directWorksHere) {
      let at = 0;
      for (const c of seen) {
        expect(Math.floor(at / SLOT_BYTES)).toBe(Math.floor((at + c.length - 1) / SLOT_BYTES));
        at += c.length;
      }
    }
  });

  it("writes a part in place from an aligned offset, leaving the bytes around it alone", async () => {
    const path = join(dir, "in-place");
    const around = Buffer.alloc(8 * SLOT_BYTES, 0xab);
    await writeFile(path, around);
    const payload = randomBytes(2 * SLOT_BYTES);
    const at = 3 * SLOT_BYTES;
    const { outcome, directBytes } = await writeWith(path, payload, { position: at });
    expect(outcome.ok).toBe(true);
    const after = await readFile(path);
    expect(after.subarray(at, at + payload.length).equals(payload)).toBe(true);
    expect(after.subarray(0, at).equals(around.subarray(0, at))).toBe(true);
    expect(after.subarray(at + payload.length).equals(around.subarray(at + payload.length))).toBe(
      true,
    );
    if (directWorksHere) expect(directBytes).toBe(payload.length);
  });

  it("goes through the page cache from an offset direct writes cannot start at", async () => {
    const path = join(dir, "unaligned");
    await writeFile(path, Buffer.alloc(100));
    const payload = randomBytes(SLOT_BYTES + 10);
    const { outcome, directBytes } = await writeWith(path, payload, { position: 100 });
    expect(outcome.ok).toBe(true);
    expect((await readFile(path)).subarray(100).equals(payload)).toBe(true);
    expect(directBytes).toBe(0);
  });

  it("writes a file smaller than one slot through the page cache, holding no slot", async () => {
    const path = join(dir, "small");
    await writeFile(path, "");
    const payload = randomBytes(SLOT_BYTES - 4096);
    const free = freeSlotCount();
    const held: number[] = [];
    async function* watched(): AsyncIterable<Uint8Array> {
      yield payload.subarray(0, 65536);
      held.push(freeSlotCount());
      yield payload.subarray(65536);
    }
    const fh = await open(path, "r+");
    const real = await openDirect(path);
    const direct = real ? spied(real) : null;
    try {
      const outcome = await copyLimited(watched(), fh, payload.length, {
        durable: true,
        direct: direct?.fh ?? null,
      });
      expect(outcome.ok).toBe(true);
    } finally {
      await direct?.fh.close();
      await fh.close();
    }
    expect(held).toEqual([free]);
    expect(direct?.bytes() ?? 0).toBe(0);
    expect((await readFile(path)).equals(payload)).toBe(true);
  });

  it("writes what a device refuses to take directly (EINVAL) through the page cache", async () => {
    const path = join(dir, "refused");
    await writeFile(path, "");
    const payload = randomBytes(2 * SLOT_BYTES + 1);
    const { outcome } = await writeWith(path, payload, { fail: "EINVAL" });
    expect(outcome.ok).toBe(true);
    expect((await readFile(path)).equals(payload)).toBe(true);
  });

  it.skipIf(process.platform !== "linux")(
    "fails the upload on any other write error, and still gives its slots back",
    async () => {
      const path = join(dir, "broken");
      await writeFile(path, "");
      const before = freeSlotCount();
      const fh = await open(path, "r+");
      const real = await openDirect(path);
      if (!real) return;
      const direct = spied(real, "EIO");
      try {
        await expect(
          copyLimited(chunksOf(randomBytes(3 * SLOT_BYTES)), fh, 3 * SLOT_BYTES, {
            durable: true,
            direct: direct.fh,
          }),
        ).rejects.toMatchObject({ code: "EIO" });
      } finally {
        await direct.fh.close();
        await fh.close();
      }
      expect(freeSlotCount()).toBe(before);
    },
  );

  it("makes the reader wait while every slot is written, and only then", async () => {
    const path = join(dir, "slow");
    await writeFile(path, "");
    const fh = await open(path, "r+");
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const slow = {
      writev: async (buffers: NodeJS.ArrayBufferView[], position?: number) => {
        await gate;
        return fh.writev(buffers, position);
      },
    };
    // cast: the direct writer calls writev alone on its direct handle
    const writer = createDirectWriter(slow as unknown as FileHandle, fh, {
      position: 0,
      maxBytes: 4 * SLOTS_PER_WRITER * SLOT_BYTES,
    });
    expect(writer).not.toBeNull();
    if (!writer) return;
    const chunk = randomBytes(SLOT_BYTES / 2);
    const waits: boolean[] = [];
    for (let i = 0; i < 4 * SLOTS_PER_WRITER; i++) {
      const wait = writer.offer(chunk);
      waits.push(wait !== null);
      if (wait) break;
    }
    // The writer's slots take two half-slot chunks each: the chunk that fills the last one is
    // told to wait (no slot left to fill while the first is still being written), none before.
    expect(waits).toEqual([...Array(2 * SLOTS_PER_WRITER - 1).fill(false), true]);
    release();
    await writer.finish();
    await writer.settle();
    await fh.close();
    expect((await readFile(path)).length).toBe(chunk.length * waits.length);
  });
});
