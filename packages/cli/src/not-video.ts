/**
 * Telling from a file's first bytes that it is not a video, before a price is asked or anything
 * is charged. A photo is the usual mistake (ffprobe reads a JPEG as a one-frame "video" of
 * length 0:00, which the server would have charged for); an empty file, a text file, a document,
 * an archive or a sound file are the others. Each gets one sentence saying what the file is and
 * what to do instead. Anything not recognised here is left to the container readers (probe.ts).
 */
import { open } from "node:fs/promises";
import path from "node:path";

/** How much of the file is read: signatures sit in the first bytes, text shows in a few KB. */
const HEAD_BYTES = 4096;

interface Signature {
  /** What the file is, as a person would name it. */
  what: string;
  kind: "image" | "sound" | "document";
  test(head: Buffer): boolean;
}

const ascii = (head: Buffer, at: number, text: string) =>
  head.toString("latin1", at, at + text.length) === text;
const bytes = (head: Buffer, at: number, values: number[]) =>
  values.every((v, i) => head[at + i] === v);
/** An ISO BMFF file (MP4's family) whose `ftyp` brand is one of `brands`. */
const ftypBrand = (head: Buffer, brands: string[]) =>
  ascii(head, 4, "ftyp") && brands.includes(head.toString("latin1", 8, 12));

const BMP_DIB_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

/** Formats the clip command takes as they are. */
const CLIP_IMAGES = new Set(["JPEG", "PNG", "WebP"]);

const SIGNATURES: Signature[] = [
  { what: "JPEG", kind: "image", test: (h) => bytes(h, 0, [0xff, 0xd8, 0xff]) },
  { what: "PNG", kind: "image", test: (h) => bytes(h, 0, [0x89, 0x50, 0x4e, 0x47]) },
  { what: "WebP", kind: "image", test: (h) => ascii(h, 0, "RIFF") && ascii(h, 8, "WEBP") },
  { what: "GIF", kind: "image", test: (h) => ascii(h, 0, "GIF87a") || ascii(h, 0, "GIF89a") },
  // "BM" then the DIB header's size at 14: one of the sizes the format's versions use.
  {
    what: "BMP",
    kind: "image",
    test: (h) => ascii(h, 0, "BM") && h.length >= 18 && BMP_DIB_SIZES.has(h.readUInt32LE(14)),
  },
  {
    what: "TIFF",
    kind: "image",
    test: (h) => bytes(h, 0, [0x49, 0x49, 0x2a, 0x00]) || bytes(h, 0, [0x4d, 0x4d, 0x00, 0x2a]),
  },
  {
    what: "HEIC/AVIF",
    kind: "image",
    test: (h) => ftypBrand(h, ["heic", "heix", "heim", "heis", "mif1", "msf1", "avif", "avis"]),
  },
  { what: "Photoshop", kind: "image", test: (h) => ascii(h, 0, "8BPS") },
  { what: "MP3", kind: "sound", test: (h) => ascii(h, 0, "ID3") },
  // An MPEG audio frame's sync word (11 bits set); JPEG's FF D8 does not have it.
  { what: "MP3/AAC", kind: "sound", test: (h) => h[0] === 0xff && ((h[1] ?? 0) & 0xe0) === 0xe0 },
  { what: "WAV", kind: "sound", test: (h) => ascii(h, 0, "RIFF") && ascii(h, 8, "WAVE") },
  { what: "FLAC", kind: "sound", test: (h) => ascii(h, 0, "fLaC") },
  { what: "M4A", kind: "sound", test: (h) => ftypBrand(h, ["M4A ", "M4B ", "M4P "]) },
  { what: "PDF", kind: "document", test: (h) => ascii(h, 0, "%PDF-") },
  { what: "ZIP (or Office document)", kind: "document", test: (h) => ascii(h, 0, "PK\x03\x04") },
];

/** Control bytes that do occur in text: tab, line feed, form feed, carriage return, escape. */
const TEXT_CONTROLS = new Set([0x09, 0x0a, 0x0c, 0x0d, 0x1b]);

/** Whether the bytes read as text: valid UTF-8 with no NUL and almost no control characters. */
function looksLikeText(head: Buffer, complete: boolean): boolean {
  if (head.length === 0 || head.includes(0)) return false;
  let controls = 0;
  for (const b of head) if ((b < 0x20 && !TEXT_CONTROLS.has(b)) || b === 0x7f) controls++;
  if (controls > head.length / 100) return false;
  try {
    // Streaming: a multi-byte character cut at the end of the slice is not a decoding error.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: !complete });
    return true;
  } catch {
    return false;
  }
}

/** The sentence for a recognised kind of file. */
function sentence(name: string, sig: Signature): string {
  switch (sig.kind) {
    case "image": {
      const instead = CLIP_IMAGES.has(sig.what)
        ? `to bring a photo to life, make a clip of it: kinora clip ${name} "a prompt".`
        : "to bring a photo to life, save it as JPEG, PNG or WebP and use kinora clip.";
      return `${name} is a still image (${sig.what}), not a video: a restore needs a moving picture; ${instead}`;
    }
    case "sound":
      return `${name} is a sound file (${sig.what}) with no picture: a restore needs a video.`;
    default:
      return `${name} is a ${sig.what} file, not a video.`;
  }
}

/**
 * Why `file` (of `sizeBytes`) is certainly not a video, as one sentence naming it; undefined
 * when its first bytes do not say (it may well be a video: the container readers decide).
 */
export async function notVideoReason(file: string, sizeBytes: number): Promise<string | undefined> {
  const name = path.basename(file);
  if (sizeBytes === 0) return `${name} is empty (0 bytes): there is no video in it to restore.`;
  const fh = await open(file, "r");
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(Math.min(HEAD_BYTES, sizeBytes));
    const { bytesRead } = await fh.read(buffer, 0, buffer.length, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  const sig = SIGNATURES.find((s) => s.test(head));
  if (sig) return sentence(name, sig);
  if (looksLikeText(head, head.length === sizeBytes)) {
    return `${name} is a text file, not a video.`;
  }
  return undefined;
}
