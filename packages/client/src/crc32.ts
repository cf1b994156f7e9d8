/**
 * CRC32 (IEEE 802.3, as zlib, gzip and S3's x-amz-checksum-crc32 compute it), for the parts a
 * plan asks to carry one. Node ≥ 20.15 has it in zlib (fast, in C); anywhere else (a browser
 * sending a Blob) a table-driven version here, eight bytes a step, reads a few hundred MB/s.
 */

type Tables = readonly [
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
];

/** Eight 256-entry tables: table k at byte b is the CRC of b followed by k zero bytes. */
function buildTables(): Tables {
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t0[n] = c >>> 0;
  }
  const next = (prev: Uint32Array) => {
    const table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      const p = prev[n]!;
      table[n] = ((p >>> 8) ^ t0[p & 0xff]!) >>> 0;
    }
    return table;
  };
  const t1 = next(t0);
  const t2 = next(t1);
  const t3 = next(t2);
  const t4 = next(t3);
  const t5 = next(t4);
  const t6 = next(t5);
  return [t0, t1, t2, t3, t4, t5, t6, next(t6)];
}

const TABLES = buildTables();

/** The running CRC32 of `bytes` after `crc` (0 to start), as zlib.crc32 answers it. */
export function crc32Js(bytes: Uint8Array, crc = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES;
  let c = ~crc >>> 0;
  let i = 0;
  const n = bytes.length;
  // Reads past the checked bound cannot happen: i + 8 <= n in the loop, i < n in the tail.
  for (; i + 8 <= n; i += 8) {
    const lo =
      (c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>>
      0;
    c =
      t7[lo & 0xff]! ^
      t6[(lo >>> 8) & 0xff]! ^
      t5[(lo >>> 16) & 0xff]! ^
      t4[lo >>> 24]! ^
      t3[bytes[i + 4]!]! ^
      t2[bytes[i + 5]!]! ^
      t1[bytes[i + 6]!]! ^
      t0[bytes[i + 7]!]!;
  }
  for (; i < n; i++) c = t0[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** A CRC32 as S3's header carries it: the 4 bytes big-endian, in base64. */
export function crc32Base64(crc: number): string {
  const v = crc >>> 0;
  return btoa(String.fromCharCode(v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff));
}
