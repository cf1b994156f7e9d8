/**
 * Page-aligned staging buffers for direct writes (direct-writer.ts), shared by the process.
 *
 * A file opened with O_DIRECT takes only buffers whose address is aligned (to 512 bytes on the
 * disks here; 4096 covers every common device), and JavaScript cannot ask for an address. A
 * WebAssembly memory's backing store is mapped by the page, so the slots carved from it are
 * aligned by construction; a first direct write that is refused anyway (EINVAL) makes the
 * writer fall back to the page cache. The memories are never grown (growing detaches every view
 * of them) and never freed: the pool is the process's, like the thread pool; pages are only
 * resident once touched, and a slot is reused write after write.
 */

/**
 * One staging buffer: a direct write's unit, and the alignment of every direct write's size.
 * 8 MiB: each direct write to a fresh part of a file allocates its blocks and ends in a
 * completion that wakes a pool thread and then the event loop, and on this VM those wakeups and
 * allocations cost more than the copy. 2 GiB through the local store, `npm run bench -- parts`,
 * 8 MiB slots (two per writer, one write in flight) against 1 MiB (four, two in flight), six
 * rounds each way in alternating runs, 2026-12-02: in parts 493–552 MB/s against 368–437 and
 * 1.38–1.45 CPU s per GiB on the API node against 1.63–1.90; one PUT 518–966 against 514–588
 * and 0.64–0.73 CPU s per GiB against 0.98–1.08. 4 MiB slots sat between (parts 432–540).
 */
export const SLOT_BYTES = 8 * 1024 * 1024;
/** What a direct write's offset and length must be multiples of (the common 4 KiB sector). */
export const DIRECT_ALIGN = 4096;
const WASM_PAGE = 64 * 1024;
/** Slots carved from one WebAssembly memory (32 MiB each). */
const SLOTS_PER_MEMORY = 4;
/**
 * At most this many slots in all: 128 MiB of address space, resident only as used; eight
 * uploads (or parts) written directly at once, any more through the page cache.
 */
const MAX_SLOTS = 16;

const free: Buffer[] = [];
let made = 0;

function grow(): boolean {
  if (made >= MAX_SLOTS) return false;
  let memory: WebAssembly.Memory;
  try {
    const pages = (SLOTS_PER_MEMORY * SLOT_BYTES) / WASM_PAGE;
    memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
  } catch {
    // An address-space limit (ulimit -v) may refuse the reservation: the page cache then.
    made = MAX_SLOTS;
    return false;
  }
  for (let i = 0; i < SLOTS_PER_MEMORY; i++) {
    free.push(Buffer.from(memory.buffer, i * SLOT_BYTES, SLOT_BYTES));
  }
  made += SLOTS_PER_MEMORY;
  return true;
}

/**
 * `count` aligned slots of SLOT_BYTES for one writer, or null when the pool is spent (so many
 * uploads at once that the writer should use the page cache instead).
 */
export function takeSlots(count: number): Buffer[] | null {
  while (free.length < count) if (!grow()) return null;
  return free.splice(free.length - count, count);
}

/** Gives slots back once nothing reads from them any more (no write in flight). */
export function giveSlots(slots: readonly Buffer[]): void {
  free.push(...slots);
}

/** Slots free in the pool now (tests: every writer gives back what it took). */
export function freeSlotCount(): number {
  return free.length;
}
