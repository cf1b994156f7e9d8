/**
 * In-process locks of the local store's uploads in parts (one process serves the local store):
 * who is writing each part, and whether the upload is closing (being completed or aborted).
 *
 * A part's newer PUT wins. A client retries a part when its connection broke, and the server
 * may not have noticed yet (a dead peer sends no FIN; its request just stops): refusing the
 * retry as "busy" would block the part until the socket timed out. So a newer writer stops the
 * older one (its signal aborts, ending its wait for bytes that will never come) and waits until
 * the older one has finished with the file before writing a byte: the two never write the same
 * region at once, and the older one never records the part after the newer one began.
 *
 * The parts share one data file, and so one write gate (one write at a time on the file) and one
 * write-back count (the file written back every so many bytes of all the parts').
 */
import {
  createSerialGate,
  createWriteBackCount,
  type SerialGate,
  type WriteBackCount,
} from "./chunk-writer.js";

/** A writer's hold on one part. */
export interface PartLease {
  /** Aborts when a newer PUT of the same part takes over (or the upload is aborted). */
  signal: AbortSignal;
  /** Resolves once every older writer of the part is done with the file. */
  ready: Promise<void>;
  /** Ends the hold; call once, when done with the file. */
  release(): void;
  /** The upload's write gate, shared by every part being written (see chunk-writer.ts). */
  gate: SerialGate;
  /** The upload's write-back count, shared the same way. */
  writeBack: WriteBackCount;
}

/** Why a writer was stopped: a newer PUT of its part took over. */
export class SupersededError extends Error {
  constructor(partNumber: number) {
    super(`a newer PUT of part ${partNumber} took over`);
    this.name = "SupersededError";
  }
}

/** Why a writer was stopped: the upload was aborted under it. */
export class UploadClosedError extends Error {
  constructor() {
    super("the upload in parts was aborted");
    this.name = "UploadClosedError";
  }
}

interface Writer {
  controller: AbortController;
  done: Promise<void>;
}

interface UploadEntry {
  closing: boolean;
  writing: Map<number, Writer>;
  gate: SerialGate;
  writeBack: WriteBackCount;
}

/** The locks of every upload in parts this process serves. */
export function createUploadLocks() {
  const uploads = new Map<string, UploadEntry>();
  const entry = (id: string) => {
    let e = uploads.get(id);
    if (!e) {
      e = {
        closing: false,
        writing: new Map(),
        gate: createSerialGate(),
        writeBack: createWriteBackCount(),
      };
      uploads.set(id, e);
    }
    return e;
  };
  return {
    /** A hold on part `n`, stopping any older writer of it; "closing" while completing/aborting. */
    beginPart(id: string, n: number): "closing" | PartLease {
      const e = entry(id);
      if (e.closing) return "closing";
      const older = e.writing.get(n);
      older?.controller.abort(new SupersededError(n));
      let finish!: () => void;
      const self: Writer = {
        controller: new AbortController(),
        done: new Promise<void>((resolve) => {
          finish = resolve;
        }),
      };
      e.writing.set(n, self);
      let released = false;
      return {
        signal: self.controller.signal,
        ready: older ? older.done : Promise.resolve(),
        gate: e.gate,
        writeBack: e.writeBack,
        release: () => {
          if (released) return;
          released = true;
          finish();
          if (e.writing.get(n) === self) e.writing.delete(n);
          if (!e.closing && e.writing.size === 0 && uploads.get(id) === e) uploads.delete(id);
        },
      };
    },
    /**
     * Marks the upload closing so no part starts; answers a part still arriving instead (unless
     * `force`, which also stops the writers: an abort frees their file under them).
     */
    close(id: string, opts: { force?: boolean } = {}): number | null {
      const e = entry(id);
      const [first] = e.writing.keys();
      if (first !== undefined && !opts.force) return first;
      e.closing = true;
      if (opts.force)
        for (const w of e.writing.values()) w.controller.abort(new UploadClosedError());
      return null;
    },
    /** Takes parts again after a completion that failed. */
    reopen(id: string) {
      const e = uploads.get(id);
      if (!e) return;
      e.closing = false;
      if (e.writing.size === 0) uploads.delete(id);
    },
    /** Drops the upload's locks once it is completed or aborted. */
    forget(id: string) {
      uploads.delete(id);
    },
  };
}
