import type { FileHandle } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createChunkWriter, createSerialGate, createWriteBackCount } from "./chunk-writer.js";

/** A file handle whose writes finish when the test says so (or at once), recording every call. */
function fakeFile(
  opts: {
    manual?: boolean;
    shortFirstWrite?: boolean;
    failWrite?: boolean;
    failSync?: boolean;
    /** Syncs finish when the test says so (`completeSync`). */
    manualSync?: boolean;
  } = {},
) {
  const written: number[] = [];
  const calls: number[] = [];
  const pending: (() => void)[] = [];
  const pendingSyncs: (() => void)[] = [];
  let syncs = 0;
  let first = true;
  const fh = {
    writev(buffers: Uint8Array[]) {
      calls.push(buffers.length);
      let bytes = buffers.reduce((n, b) => n + b.byteLength, 0);
      if (opts.shortFirstWrite && first && bytes > 1) bytes = Math.floor(bytes / 2);
      first = false;
      const done = () => {
        let left = bytes;
        for (const b of buffers) {
          const take = Math.min(left, b.byteLength);
          written.push(...b.subarray(0, take));
          left -= take;
        }
      };
      return new Promise((resolve, reject) => {
        const finish = () => {
          if (opts.failWrite) return reject(new Error("EIO: write failed"));
          done();
          resolve({ bytesWritten: bytes, buffers });
        };
        if (opts.manual) pending.push(finish);
        else setImmediate(finish);
      });
    },
    datasync() {
      syncs++;
      if (opts.manualSync) return new Promise<void>((resolve) => pendingSyncs.push(resolve));
      return opts.failSync ? Promise.reject(new Error("EIO: sync failed")) : Promise.resolve();
    },
  };
  return {
    fh: fh as unknown as FileHandle,
    written,
    calls,
    syncs: () => syncs,
    /** Finishes the oldest write in flight. */
    completeOne: () => pending.shift()?.(),
    completeSync: () => pendingSyncs.shift()?.(),
    inFlight: () => pending.length,
  };
}

const chunk = (value: number, size = 4) => new Uint8Array(size).fill(value);
const tick = () => new Promise((r) => setImmediate(r));

describe("chunk writer", () => {
  it("writes every byte in order, the chunks that arrived during a write together", async () => {
    const file = fakeFile({ manual: true });
    const writer = createChunkWriter(file.fh, { maxHeldBytes: 1024 });
    await writer.write(chunk(1));
    await writer.write(chunk(2));
    await writer.write(chunk(3));
    expect(file.calls).toEqual([1]); // one write in flight, two chunks queued behind it
    file.completeOne();
    await tick();
    expect(file.calls).toEqual([1, 2]);
    file.completeOne();
    await writer.finish();
    expect(file.written).toEqual([...chunk(1), ...chunk(2), ...chunk(3)]);
  });

  it("holds at most maxHeldBytes (plus the chunk that crossed it): the reader waits for the disk", async () => {
    const file = fakeFile({ manual: true });
    const writer = createChunkWriter(file.fh, { maxHeldBytes: 10 });
    await writer.write(chunk(1));
    await writer.write(chunk(2));
    let returned = false;
    const third = writer.write(chunk(3)).then(() => {
      returned = true;
    });
    await tick();
    expect(returned).toBe(false); // 12 bytes held > 10: waits
    file.completeOne();
    await third;
    expect(returned).toBe(true);
    while (file.inFlight() > 0) {
      file.completeOne();
      await tick();
    }
    await writer.finish();
    expect(file.written).toHaveLength(12);
  });

  it("offer queues without a promise while there is room, answers what to wait for when full, throws a failed write", async () => {
    const file = fakeFile({ manual: true });
    const writer = createChunkWriter(file.fh, { maxHeldBytes: 10 });
    expect(writer.offer(chunk(1))).toBeNull();
    expect(writer.offer(chunk(2))).toBeNull();
    const wait = writer.offer(chunk(3)); // 12 bytes held > 10
    expect(wait).toBeInstanceOf(Promise);
    let roomed = false;
    void wait?.then(() => {
      roomed = true;
    });
    await tick();
    expect(roomed).toBe(false);
    file.completeOne();
    await wait;
    expect(roomed).toBe(true);
    while (file.inFlight() > 0) {
      file.completeOne();
      await tick();
    }
    await writer.finish();
    expect(file.written).toEqual([...chunk(1), ...chunk(2), ...chunk(3)]);

    const failing = createChunkWriter(fakeFile({ failWrite: true }).fh, { maxHeldBytes: 1024 });
    failing.offer(chunk(1));
    await failing.settle();
    expect(() => failing.offer(chunk(2))).toThrow("EIO: write failed");
  });

  it("finishes a write the file took only part of", async () => {
    const file = fakeFile({ shortFirstWrite: true });
    const writer = createChunkWriter(file.fh, { maxHeldBytes: 1024 });
    await writer.write(chunk(7, 10));
    await writer.write(chunk(8, 6));
    await writer.finish();
    expect(file.written).toEqual([...chunk(7, 10), ...chunk(8, 6)]);
  });

  it("a failed write fails the copy: the next write or finish throws it", async () => {
    const file = fakeFile({ failWrite: true });
    const writer = createChunkWriter(file.fh, { maxHeldBytes: 1024 });
    await writer.write(chunk(1));
    await expect(writer.finish()).rejects.toThrow("EIO: write failed");
    await expect(writer.write(chunk(2))).rejects.toThrow("EIO: write failed");
  });

  it("settle waits for the write in flight and swallows its error, so the file can be closed", async () => {
    const file = fakeFile({ manual: true, failWrite: true });
    const writer = createChunkWriter(file.fh, { maxHeldBytes: 1024 });
    await writer.write(chunk(1));
    let settled = false;
    const settling = writer.settle().then(() => {
      settled = true;
    });
    await tick();
    expect(settled).toBe(false);
    file.completeOne();
    await settling;
    expect(settled).toBe(true);
  });

  it("syncs a durable file in the background every syncEveryBytes; a failed sync fails the copy", async () => {
    const file = fakeFile();
    const writer = createChunkWriter(file.fh, { maxHeldBytes: 4, syncEveryBytes: 8 });
    for (let i = 0; i < 6; i++) await writer.write(chunk(i));
    await writer.finish();
    expect(file.syncs()).toBe(3);

    const failing = fakeFile({ failSync: true });
    const durable = createChunkWriter(failing.fh, { maxHeldBytes: 4, syncEveryBytes: 4 });
    await durable.write(chunk(1));
    await expect(durable.finish()).rejects.toThrow("EIO: sync failed");
  });

  it("does not sync a file that is not durable", async () => {
    const file = fakeFile();
    const writer = createChunkWriter(file.fh, { maxHeldBytes: 4 });
    for (let i = 0; i < 6; i++) await writer.write(chunk(i));
    await writer.finish();
    expect(file.syncs()).toBe(0);
  });

  it("writers sharing a gate write one at a time, each taking what arrived while it waited", async () => {
    const file = fakeFile({ manual: true });
    const gate = createSerialGate();
    const a = createChunkWriter(file.fh, { maxHeldBytes: 1024, gate, position: 0 });
    const b = createChunkWriter(file.fh, { maxHeldBytes: 1024, gate, position: 100 });
    await a.write(chunk(1));
    await b.write(chunk(2));
    await b.write(chunk(3));
    await tick();
    expect(file.inFlight()).toBe(1); // a's write; b waits at the gate, not in the kernel
    await a.write(chunk(4));
    file.completeOne();
    await tick();
    expect(file.inFlight()).toBe(1);
    expect(file.calls).toEqual([1, 2]); // b's two chunks in one writev
    file.completeOne();
    await tick();
    expect(file.calls).toEqual([1, 2, 1]); // then a's chunk that came meanwhile
    file.completeOne();
    await Promise.all([a.finish(), b.finish()]);
    expect(file.written).toEqual([...chunk(1), ...chunk(2), ...chunk(3), ...chunk(4)]);
  });

  it("a writer's failed write behind a gate is its own: the next writer still writes", async () => {
    const gate = createSerialGate();
    const failing = createChunkWriter(fakeFile({ failWrite: true }).fh, { maxHeldBytes: 64, gate });
    const file = fakeFile();
    const healthy = createChunkWriter(file.fh, { maxHeldBytes: 64, gate });
    await failing.write(chunk(1));
    await healthy.write(chunk(2));
    await expect(failing.finish()).rejects.toThrow("EIO: write failed");
    await healthy.finish();
    expect(file.written).toEqual([...chunk(2)]);
  });

  it("writers sharing a write-back count sync the file every syncEveryBytes of all their bytes, one sync at a time", async () => {
    const file = fakeFile({ manualSync: true });
    const writeBack = createWriteBackCount();
    const opts = { maxHeldBytes: 64, syncEveryBytes: 8, writeBack };
    const a = createChunkWriter(file.fh, { ...opts, position: 0 });
    const b = createChunkWriter(file.fh, { ...opts, position: 100 });
    await a.write(chunk(1));
    await tick();
    expect(file.syncs()).toBe(0); // 4 bytes of the file's 8
    await b.write(chunk(2));
    await tick();
    expect(file.syncs()).toBe(1); // b's 4 bytes made the file's 8: each writer alone had 4
    await a.write(chunk(3, 8));
    await tick();
    expect(file.syncs()).toBe(1); // 8 more, but the file's write-back is still running
    let bFinished = false;
    const bFinishing = b.finish().then(() => {
      bFinished = true;
    });
    await tick();
    expect(bFinished).toBe(false); // b started the sync on its handle: it waits for it
    file.completeSync();
    await bFinishing;
    await a.write(chunk(4));
    await tick();
    expect(file.syncs()).toBe(2); // 12 unsynced bytes of the file's
    file.completeSync();
    await a.finish();
  });
});
