/**
 * Between fetch's streams and Node's. At run time a fetch body and `Readable.toWeb`'s result are
 * the same class (node:stream/web's ReadableStream); TypeScript types the DOM lib's and Node's
 * apart, so the two crossings are cast here, once each, instead of at every download and upload.
 */
import { Readable } from "node:stream";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";

/** A fetch response's body as a Node stream (for pipeline into a file or a hash). */
export function nodeReadableOf(body: ReadableStream<Uint8Array>): Readable {
  // cast: one class at run time (see above); only the DOM and Node typings differ
  return Readable.fromWeb(body as NodeWebReadableStream<Uint8Array>);
}

/** A Node stream (a file or a range of one) as a fetch request body. */
export function requestBodyOf(stream: Readable): BodyInit {
  // cast: one class at run time (see above); only the DOM and Node typings differ
  return Readable.toWeb(stream) as ReadableStream<Uint8Array>;
}

/**
 * Request options for a streamed body: Node's fetch needs `duplex: "half"` for one, a field the
 * DOM lib's RequestInit does not have yet.
 */
export type StreamedRequestInit = RequestInit & { duplex: "half" };
