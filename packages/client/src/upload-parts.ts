/**
 * Sending a large file in parts, like a download manager: the server's plan cuts the file into
 * parts of one size; each part is hashed (the plan's checksum: CRC32 or SHA-256), given a link
 * bound to that checksum, PUT, and reported with the ETag the store answered. Parts go in
 * parallel (4 at a time by default; a lane sends its next part as soon as the last one's body is
 * out, while the store still writes it down before answering), a failed part is tried again with
 * back-off (a new link when its link expired), and a run that stopped (Ctrl-C, a crash, a lost
 * connection) resumes from what the server says has arrived: only the missing parts are sent,
 * and a part the server has whose checksum differs from the file's (another file of the same
 * size) is sent again.
 *
 * The transport is how this upload reaches its server (the job kind's operations); this module
 * knows only the shape of the plan, the links and the state.
 */
import {
  describeFailure,
  errorFromResponse,
  isAbort,
  KinoraError,
  KinoraNetworkError,
} from "./errors.js";
import { hashLane, lookahead } from "./part-hashing.js";
import { type PartChecksumAlgorithm, type PartReader, partReader } from "./part-reader.js";
import { backoffMs, type RetryOptions, retryAfterMs, sleep } from "./retry.js";
import type { UploadSource } from "./upload.js";

/** A part the server holds. */
export interface ArrivedPart {
  part_number: number;
  size_bytes: number;
  /** The part's checksum in the upload's algorithm (base64). */
  checksum: string;
}

/** What the server says of an upload in parts (its plan and the parts that arrived). */
export interface PartsState {
  status: string;
  size_bytes: number;
  part_size_bytes: number;
  part_count: number;
  /** What each part carries (the plan's checksum); absent from servers older than CRC32: sha256. */
  checksum?: string;
  parts: ArrivedPart[];
}

/** A part's link: PUT exactly the part to `url` with `headers`. */
export interface PartLink {
  part_number: number;
  size_bytes: number;
  url: string;
  headers: Record<string, string>;
}

/** How the uploader talks to the server about one upload. */
export interface PartsTransport {
  /** The plan and what arrived (read at the start, so a second run resumes). */
  state(signal?: AbortSignal): Promise<PartsState>;
  /** Links for these parts, each bound to its checksum. */
  links(
    parts: { part_number: number; checksum: string }[],
    signal?: AbortSignal,
  ): Promise<PartLink[]>;
  /** Tells the server a part arrived whole, with the ETag its PUT answered. */
  report(
    part: { part_number: number; etag: string; checksum: string },
    signal?: AbortSignal,
  ): Promise<void>;
}

/** Options of an upload in parts. */
export interface PartsUploadOptions extends RetryOptions {
  signal?: AbortSignal;
  /**
   * Parts sent at once (default 4). Each lane may also hold one part whose body went out and
   * whose store has not answered yet, so up to twice as many requests are open.
   */
  concurrency?: number;
  /** Bytes the server has (parts already there count from the start) and the total. */
  onProgress?: (doneBytes: number, totalBytes: number) => void;
  /** A part arrived whole (`sent`) or was there already (`had`). */
  onPart?: (partNumber: number, outcome: "sent" | "had") => void;
  /** Called before waiting `delayMs` to try part `partNumber` again after `reason`. */
  onRetry?: (partNumber: number, attempt: number, delayMs: number, reason: string) => void;
  /**
   * Hash the parts the server already has and send again any that differ (default true): costs
   * a read of what arrived, far less than sending it, and catches a changed file.
   */
  verifyArrived?: boolean;
  fetch?: typeof fetch;
}

/** What an upload in parts did. */
export interface PartsUploadResult {
  /** Parts sent by this run. */
  sent: number[];
  /** Parts the server had already. */
  had: number[];
  /** PUTs made, retries included. */
  puts: number;
}

/** Uploads `source` in the parts of the transport's plan; resolves when every part arrived. */
export async function uploadParts(
  transport: PartsTransport,
  source: UploadSource,
  options: PartsUploadOptions = {},
): Promise<PartsUploadResult> {
  const reader = await partReader(source);
  try {
    return await uploadFrom(reader, transport, options);
  } finally {
    await reader.close?.();
  }
}

async function uploadFrom(
  reader: PartReader,
  transport: PartsTransport,
  options: PartsUploadOptions,
): Promise<PartsUploadResult> {
  const signal = options.signal;
  const state = await transport.state(signal);
  if (state.size_bytes !== reader.size) {
    throw new TypeError(
      `the file is ${reader.size} bytes but the upload was planned for ${state.size_bytes}: it is another file`,
    );
  }
  const algorithm = state.checksum ?? "sha256";
  if (algorithm !== "crc32" && algorithm !== "sha256") {
    throw new TypeError(
      `the upload's parts carry ${algorithm}; this client sends crc32 or sha256 (update @kinora/client)`,
    );
  }
  const range = (n: number) => {
    const start = (n - 1) * state.part_size_bytes;
    return { start, end: Math.min(start + state.part_size_bytes, state.size_bytes) };
  };
  const had = await partsToKeep(state, algorithm, reader, range, options);
  let doneBytes = had.reduce((sum, n) => sum + range(n).end - range(n).start, 0);
  const inFlight = new Map<number, number>();
  const progress = () => {
    let moving = 0;
    for (const b of inFlight.values()) moving += b;
    options.onProgress?.(doneBytes + moving, state.size_bytes);
  };
  for (const n of had) options.onPart?.(n, "had");
  progress();
  const queue: number[] = [];
  const kept = new Set(had);
  for (let n = 1; n <= state.part_count; n++) if (!kept.has(n)) queue.push(n);
  const result: PartsUploadResult = { sent: [], had, puts: 0 };
  // One failed part stops the others: the error is the upload's.
  const stop = new AbortController();
  const stopped = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  // Each lane's next part is hashed while its current one is on the wire, and a part's report
  // does not hold its lane: a lane that hashed, asked a link and reported between two PUTs sent
  // nothing for that while, and lanes that start together finish together.
  // Its link too: asked for as soon as the part is hashed, so the lane does not wait a round
  // trip to the API between two PUTs (one that fails is asked again when the part is sent).
  const hash = hashLane(reader, algorithm);
  const prepared = lookahead(
    queue,
    async (n) => {
      const { start, end } = range(n);
      const checksum = await hash(start, end);
      const link = await transport
        .links([{ part_number: n, checksum }], stopped)
        .then((links) => links[0])
        .catch(() => undefined);
      return { checksum, link };
    },
    options.concurrency ?? 4,
  );
  const reports: Promise<void>[] = [];
  /** Sends part `n`; resolves `bodySent` once its last byte is handed to the connection. */
  const send = (
    n: number,
    { checksum, link }: { checksum: string; link: PartLink | undefined },
    bodySent: () => void,
  ): Promise<void> => {
    const { start, end } = range(n);
    return sendPart(transport, reader, n, start, end, checksum, {
      ...options,
      link,
      signal: stopped,
      count: () => result.puts++,
      onBytes: (sent) => {
        inFlight.set(n, sent);
        progress();
        if (sent === end - start) bodySent();
      },
    }).then(
      (etag) => {
        inFlight.delete(n);
        doneBytes += end - start;
        progress();
        reports.push(
          reportWithRetries(
            transport,
            { part_number: n, etag, checksum },
            { ...options, signal: stopped },
          ).then(
            () => {
              result.sent.push(n);
              options.onPart?.(n, "sent");
            },
            (err: unknown) => {
              stop.abort(err);
              throw err;
            },
          ),
        );
      },
      (err: unknown) => {
        // At once, not when its lane next looks: the lane may be sending its next part.
        stop.abort(err);
        throw err;
      },
    );
  };
  // A lane takes its next part once the last one's body is on the wire, not once the store
  // answered it: the store's answer waits for the part to be on its disk (a datasync, then its
  // record), and lanes that started together end together, so every lane idled through that
  // wait at once and the connection carried nothing. A lane holds at most one part awaiting
  // its answer (so at most twice `concurrency` parts are open, `concurrency` of them sending).
  const worker = async () => {
    let answering: Promise<void> | null = null;
    for (let n = queue.shift(); n !== undefined; n = queue.shift()) {
      const ready = await prepared(n);
      let bodySent = () => {};
      const onWire = new Promise<void>((resolve) => (bodySent = resolve));
      const part = send(n, ready, bodySent);
      // Awaited below or on the lane's next turn; its failure has stopped the upload already.
      part.catch(() => {});
      await Promise.race([onWire, part]);
      if (answering) await answering;
      answering = part;
    }
    if (answering) await answering;
  };
  const workers = Array.from({ length: Math.max(1, options.concurrency ?? 4) }, () =>
    worker().catch((err: unknown) => {
      stop.abort(err);
      throw err;
    }),
  );
  const outcomes = [
    ...(await Promise.allSettled(workers)),
    // Every lane is done; the reports still under way end before the upload does.
    ...(await Promise.allSettled(reports)),
  ];
  if (signal?.aborted) throw signal.reason;
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
  if (failed) throw failed.reason;
  result.sent.sort((a, b) => a - b);
  return result;
}

/** The arrived parts to keep: all, or (verifying) those whose bytes hash as the server says. */
async function partsToKeep(
  state: PartsState,
  algorithm: PartChecksumAlgorithm,
  reader: PartReader,
  range: (n: number) => { start: number; end: number },
  options: PartsUploadOptions,
): Promise<number[]> {
  const arrived = state.parts.filter(
    (p) => p.part_number >= 1 && p.part_number <= state.part_count,
  );
  if (options.verifyArrived === false) return arrived.map((p) => p.part_number);
  const keep: number[] = [];
  for (const p of arrived) {
    options.signal?.throwIfAborted();
    const { start, end } = range(p.part_number);
    if (
      p.size_bytes === end - start &&
      (await reader.checksum(algorithm, start, end)) === p.checksum
    ) {
      keep.push(p.part_number);
    }
  }
  return keep;
}

interface SendOptions extends PartsUploadOptions {
  signal: AbortSignal;
  /** A link asked for ahead (the lookahead's); a fresh one is asked when none or it fails. */
  link?: PartLink;
  count: () => void;
  onBytes: (sent: number) => void;
}

/** What to do after a failed PUT: try again (after `delayMs`, maybe with a new link) or stop. */
type Verdict =
  | { retry: true; reason: string; delayMs?: number; newLink: boolean }
  | { retry: false };

function verdictFor(status: number, retryAfter: number | undefined): Verdict {
  if (status === 403) return { retry: true, reason: "the link expired", newLink: true, delayMs: 0 };
  if (status === 400)
    return { retry: true, reason: "the part was damaged on the way", newLink: false };
  if (status === 409 || status === 408 || status === 429 || status >= 500) {
    return { retry: true, reason: `HTTP ${status}`, newLink: false, delayMs: retryAfter };
  }
  return { retry: false };
}

/** One PUT of a part: its ETag, or what to do about the failure (with the refusal, if any). */
async function putOnce(
  link: PartLink,
  reader: PartReader,
  start: number,
  end: number,
  opts: SendOptions,
): Promise<{ etag: string } | { verdict: Verdict; error: Error }> {
  const headers = { ...link.headers, "content-length": String(end - start) };
  let res: Response;
  try {
    opts.count();
    res =
      reader.put && !opts.fetch
        ? await reader.put(link.url, headers, start, end, opts.signal, opts.onBytes)
        : // cast: Node's fetch needs duplex for a streamed body; the DOM lib's RequestInit lacks the field
          await (opts.fetch ?? globalThis.fetch.bind(globalThis))(link.url, {
            method: "PUT",
            headers,
            body: counted(await reader.body(start, end), opts.onBytes),
            signal: opts.signal,
            duplex: "half",
          } as RequestInit);
  } catch (err) {
    if (isAbort(err, opts.signal)) throw opts.signal.reason ?? err;
    const error = new KinoraNetworkError(`upload part ${link.part_number}`, err);
    return { verdict: { retry: true, reason: describeFailure(err), newLink: false }, error };
  }
  if (!res.ok) {
    const error = await errorFromResponse(`upload part ${link.part_number}`, res);
    return { verdict: verdictFor(res.status, retryAfterMs(res.headers.get("retry-after"))), error };
  }
  await res.body?.cancel();
  const etag = res.headers.get("etag");
  if (!etag) {
    throw new Error(
      `part ${link.part_number}: the store answered no ETag header (a bucket's CORS must expose ETag)`,
    );
  }
  return { etag };
}

/** Links and PUTs one part, trying again on what can pass; the ETag its store answered. */
async function sendPart(
  transport: PartsTransport,
  reader: PartReader,
  n: number,
  start: number,
  end: number,
  checksum: string,
  opts: SendOptions,
): Promise<string> {
  const maxRetries = opts.maxRetries ?? 5;
  let link = opts.link;
  for (let attempt = 1; ; attempt++) {
    opts.signal.throwIfAborted();
    link ??= (await transport.links([{ part_number: n, checksum }], opts.signal))[0];
    if (!link) throw new Error(`the server gave no link for part ${n}`);
    opts.onBytes(0);
    const outcome = await putOnce(link, reader, start, end, opts);
    if ("etag" in outcome) return outcome.etag;
    const { verdict, error } = outcome;
    if (!verdict.retry || attempt > maxRetries) throw error;
    if (verdict.newLink) link = undefined;
    const delay = verdict.delayMs ?? backoffMs(attempt, opts.retryBaseMs);
    opts.onRetry?.(n, attempt, delay, verdict.reason);
    await sleep(delay, opts.signal);
  }
}

/** Reports a part; a lost answer is asked again (reporting twice records it once). */
async function reportWithRetries(
  transport: PartsTransport,
  part: { part_number: number; etag: string; checksum: string },
  opts: RetryOptions & { signal: AbortSignal },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await transport.report(part, opts.signal);
      return;
    } catch (err) {
      const transient =
        err instanceof KinoraNetworkError ||
        (err instanceof KinoraError && (err.status >= 500 || err.status === 429));
      if (!transient || attempt > (opts.maxRetries ?? 5)) throw err;
      await sleep(backoffMs(attempt, opts.retryBaseMs), opts.signal);
    }
  }
}

/** The body, reporting the running byte count as the connection pulls it. */
function counted(body: BodyInit, onBytes: (sent: number) => void): BodyInit {
  if (!(body instanceof ReadableStream)) return body;
  // cast: Node's web ReadableStream and the DOM lib's are one class at run time, typed apart
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      sent += value.byteLength;
      controller.enqueue(value);
      onBytes(sent);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
