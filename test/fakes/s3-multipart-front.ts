/**
 * A small fake of the parts of S3's multipart API that s3rver 3.7.1 lacks, in S3's own wire
 * format over HTTP on 127.0.0.1, in front of s3rver. It passes everything through except:
 *
 * - UploadPart (`PUT ?partNumber&uploadId`): the body is checked against the Content-Length
 *   and against `x-amz-checksum-crc32` / `x-amz-checksum-sha256` / `Content-MD5` as S3 checks
 *   them (400 BadDigest, and 400 InvalidRequest for a part without the checksum of an upload
 *   created with `x-amz-checksum-algorithm: CRC32` or `SHA256`); a part of an unknown or aborted upload is 404
 *   NoSuchUpload. Passed parts are recorded (number, size, ETag, checksum) — last one wins.
 * - ListParts (`GET ?uploadId`): answered from that record, paged by `max-parts` and
 *   `part-number-marker` like S3.
 * - AbortMultipartUpload (`DELETE ?uploadId`): 204; the upload and s3rver's part files go.
 * - CompleteMultipartUpload (`POST ?uploadId`): checked as S3 checks it (every listed part
 *   held with that ETag, in ascending order, each but the last at least 5 MiB: InvalidPart,
 *   InvalidPartOrder, EntityTooSmall), then passed to s3rver, which joins the parts.
 *
 * Tests may hold the next part bodies (`holdParts`) to race them against an abort.
 */
import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import zlib from "node:zlib";

interface FrontPart {
  partNumber: number;
  sizeBytes: number;
  etag: string;
  /** The checksum the part came with, and its algorithm. */
  checksum: { algorithm: Algorithm; value: string } | null;
}

type Algorithm = "crc32" | "sha256";

/** A body's checksum as S3 computes and writes it (base64; CRC32's 4 bytes big-endian). */
function digestOf(algorithm: Algorithm, body: Buffer): string {
  if (algorithm === "sha256") return createHash("sha256").update(body).digest("base64");
  const out = Buffer.alloc(4);
  out.writeUInt32BE(zlib.crc32(body) >>> 0);
  return out.toString("base64");
}

interface FrontUpload {
  bucket: string;
  key: string;
  /** The checksum every part must carry (CreateMultipartUpload's x-amz-checksum-algorithm). */
  algorithm: Algorithm | null;
  state: "open" | "aborted" | "completed";
  parts: Map<number, FrontPart>;
}

export interface S3MultipartFront {
  url: string;
  /** Uploads by id, as the fake knows them. */
  uploads: Map<string, FrontUpload>;
  /** Each request's method and query kind, in order (e.g. "DELETE uploadId"). */
  calls: string[];
  /** Holds the next part bodies until `release` is called (a part racing an abort). */
  holdParts(): { arrived: Promise<void>; release: () => void };
  close(): Promise<void>;
}

const MIN_PART = 5 * 1024 * 1024;

/** Starts the fake in front of s3rver (its port and data directory). */
export async function startS3MultipartFront(opts: {
  targetPort: number;
  s3rverDir: string;
}): Promise<S3MultipartFront> {
  const uploads = new Map<string, FrontUpload>();
  const calls: string[] = [];
  let hold: { arrived: () => void; released: Promise<void> } | null = null;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const q = url.searchParams;
    const kind = q.has("partNumber")
      ? "partNumber"
      : q.has("uploadId")
        ? "uploadId"
        : q.has("uploads")
          ? "uploads"
          : "";
    calls.push(`${req.method} ${kind}`.trim());
    const [, bucket = "", ...rest] = url.pathname.split("/");
    const key = decodeURIComponent(rest.join("/"));
    const uploadId = q.get("uploadId") ?? "";
    const upload = uploads.get(uploadId);
    const ctx = { req, res, opts, uploads };
    if (req.method === "POST" && q.has("uploads")) return created(ctx, bucket, key);
    if (!uploadId) return forward(req, res, opts.targetPort);
    if (upload?.state !== "open") {
      // Read the body first, as S3 does, so the client hears the answer rather than a reset.
      req.resume();
      req.on("end", () =>
        s3Error(res, 404, "NoSuchUpload", "The specified upload does not exist."),
      );
      return;
    }
    if (req.method === "PUT" && q.has("partNumber")) {
      const held = hold;
      hold = null;
      return void uploadPart(ctx, upload, Number(q.get("partNumber")), held).catch(() =>
        res.destroy(),
      );
    }
    if (req.method === "GET") return listParts(res, upload, q);
    if (req.method === "DELETE")
      return void abort(ctx, upload, uploadId).catch(() => res.destroy());
    if (req.method === "POST") return void complete(ctx, upload).catch(() => res.destroy());
    return forward(req, res, opts.targetPort);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    uploads,
    calls,
    holdParts() {
      let arrived!: () => void;
      let release!: () => void;
      const arrivedP = new Promise<void>((r) => {
        arrived = r;
      });
      const released = new Promise<void>((r) => {
        release = r;
      });
      hold = { arrived, released };
      return { arrived: arrivedP, release };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  opts: { targetPort: number; s3rverDir: string };
  uploads: Map<string, FrontUpload>;
}

function created(ctx: Ctx, bucket: string, key: string): void {
  const asked = String(ctx.req.headers["x-amz-checksum-algorithm"] ?? "").toLowerCase();
  const algorithm = asked === "sha256" || asked === "crc32" ? asked : null;
  relay(ctx.req, ctx.opts.targetPort, undefined, (status, headers, body) => {
    const id = /<UploadId>([^<]+)<\/UploadId>/.exec(body)?.[1];
    if (status === 200 && id) {
      ctx.uploads.set(id, { bucket, key, algorithm, state: "open", parts: new Map() });
    }
    ctx.res.writeHead(status, headers).end(body);
  });
}

async function uploadPart(
  ctx: Ctx,
  upload: FrontUpload,
  partNumber: number,
  held: { arrived: () => void; released: Promise<void> } | null,
): Promise<void> {
  const body = await readBody(ctx.req);
  if (held) {
    held.arrived();
    await held.released;
  }
  if (upload.state !== "open")
    return s3Error(ctx.res, 404, "NoSuchUpload", "The specified upload does not exist.");
  const declared = Number(ctx.req.headers["content-length"]);
  if (!Number.isNaN(declared) && declared !== body.length) {
    return s3Error(
      ctx.res,
      400,
      "IncompleteBody",
      "You did not provide the number of bytes specified by the Content-Length HTTP header.",
    );
  }
  const md5 = ctx.req.headers["content-md5"];
  let checksum: FrontPart["checksum"] = null;
  for (const algorithm of ["crc32", "sha256"] as const) {
    const value = ctx.req.headers[`x-amz-checksum-${algorithm}`];
    if (typeof value === "string") checksum = { algorithm, value };
  }
  if (upload.algorithm && checksum?.algorithm !== upload.algorithm) {
    return s3Error(
      ctx.res,
      400,
      "InvalidRequest",
      `Checksum Type mismatch occurred, expected checksum Type: ${upload.algorithm}, actual checksum Type: ${checksum?.algorithm ?? "null"}`,
    );
  }
  if (checksum && digestOf(checksum.algorithm, body) !== checksum.value) {
    return s3Error(
      ctx.res,
      400,
      "BadDigest",
      `The ${checksum.algorithm.toUpperCase()} you specified did not match the calculated checksum.`,
    );
  }
  if (typeof md5 === "string" && createHash("md5").update(body).digest("base64") !== md5) {
    return s3Error(
      ctx.res,
      400,
      "BadDigest",
      "The Content-MD5 you specified did not match what we received.",
    );
  }
  relay(ctx.req, ctx.opts.targetPort, body, (status, headers, text) => {
    const etag = headers.etag;
    if (status === 200 && typeof etag === "string" && upload.state === "open") {
      upload.parts.set(partNumber, {
        partNumber,
        sizeBytes: body.length,
        etag,
        checksum,
      });
    }
    ctx.res.writeHead(status, headers).end(text);
  });
}

/** A part's checksum element in ListParts, as S3 names it. */
function listedChecksum(p: FrontPart): string {
  if (!p.checksum) return "";
  const tag = p.checksum.algorithm === "crc32" ? "ChecksumCRC32" : "ChecksumSHA256";
  return `<${tag}>${p.checksum.value}</${tag}>`;
}

function listParts(res: ServerResponse, upload: FrontUpload, q: URLSearchParams): void {
  const max = Math.min(Number(q.get("max-parts") ?? 1000) || 1000, 1000);
  const after = Number(q.get("part-number-marker") ?? 0) || 0;
  const all = [...upload.parts.values()]
    .sort((a, b) => a.partNumber - b.partNumber)
    .filter((p) => p.partNumber > after);
  const page = all.slice(0, max);
  const truncated = all.length > max;
  const xml = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`,
    `<Bucket>${upload.bucket}</Bucket><Key>${upload.key}</Key>`,
    `<PartNumberMarker>${after}</PartNumberMarker><MaxParts>${max}</MaxParts>`,
    `<IsTruncated>${truncated}</IsTruncated>`,
    truncated ? `<NextPartNumberMarker>${page.at(-1)?.partNumber}</NextPartNumberMarker>` : "",
    ...page.map(
      (p) =>
        `<Part><PartNumber>${p.partNumber}</PartNumber><ETag>${p.etag.replace(/"/g, "&quot;")}</ETag><Size>${p.sizeBytes}</Size>${listedChecksum(p)}</Part>`,
    ),
    `</ListPartsResult>`,
  ].join("");
  res.writeHead(200, { "Content-Type": "application/xml" }).end(xml);
}

async function abort(ctx: Ctx, upload: FrontUpload, uploadId: string): Promise<void> {
  upload.state = "aborted";
  upload.parts.clear();
  // s3rver keeps parts in <dir>/<bucket>/._S3rver_uploads/<id>: remove the folder of that id.
  await removeNamed(join(ctx.opts.s3rverDir, upload.bucket), uploadId);
  ctx.res.writeHead(204).end();
}

async function complete(ctx: Ctx, upload: FrontUpload): Promise<void> {
  const body = (await readBody(ctx.req)).toString("utf8");
  const listed = [...body.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map((m) => ({
    n: Number(/<PartNumber>(\d+)<\/PartNumber>/.exec(m[1] ?? "")?.[1]),
    etag: (/<ETag>([^<]*)<\/ETag>/.exec(m[1] ?? "")?.[1] ?? "").replace(/&quot;/g, '"'),
  }));
  for (const [i, p] of listed.entries()) {
    const held = upload.parts.get(p.n);
    if (!held || held.etag.replace(/"/g, "") !== p.etag.replace(/"/g, "")) {
      return s3Error(
        ctx.res,
        400,
        "InvalidPart",
        "One or more of the specified parts could not be found.",
      );
    }
    if (i > 0 && p.n <= (listed[i - 1]?.n ?? 0)) {
      return s3Error(
        ctx.res,
        400,
        "InvalidPartOrder",
        "The list of parts was not in ascending order.",
      );
    }
    if (i < listed.length - 1 && held.sizeBytes < MIN_PART) {
      return s3Error(
        ctx.res,
        400,
        "EntityTooSmall",
        "Your proposed upload is smaller than the minimum allowed object size.",
      );
    }
  }
  relay(ctx.req, ctx.opts.targetPort, Buffer.from(body), (status, headers, text) => {
    if (status === 200) upload.state = "completed";
    ctx.res.writeHead(status, headers).end(text);
  });
}

/** Removes every folder called `name` under `dir` (where s3rver keeps an upload's parts). */
async function removeNamed(dir: string, name: string): Promise<void> {
  const { readdir } = await import("node:fs/promises");
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (e.isDirectory() && e.name === name)
      await rm(join(e.parentPath, e.name), { recursive: true, force: true });
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Sends the request (with `body` when it was read already) to s3rver; hands back its answer. */
function relay(
  req: IncomingMessage,
  port: number,
  body: Buffer | undefined,
  done: (
    status: number,
    headers: Record<string, string | string[] | undefined>,
    text: string,
  ) => void,
): void {
  const headers = { ...req.headers };
  if (body) headers["content-length"] = String(body.length);
  const up = httpRequest(
    { host: "127.0.0.1", port, method: req.method, path: req.url, headers },
    (r) => {
      const chunks: Buffer[] = [];
      r.on("data", (c: Buffer) => chunks.push(c));
      r.on("end", () => {
        const h = { ...r.headers };
        delete h["content-length"];
        delete h["transfer-encoding"];
        done(r.statusCode ?? 502, h, Buffer.concat(chunks).toString("utf8"));
      });
    },
  );
  up.on("error", () => done(502, {}, ""));
  if (body) up.end(body);
  else req.pipe(up);
}

function forward(req: IncomingMessage, res: ServerResponse, port: number): void {
  const up = httpRequest(
    { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers },
    (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    },
  );
  up.on("error", () => res.destroy());
  req.pipe(up);
}

function s3Error(res: ServerResponse, status: number, code: string, message: string): void {
  res
    .writeHead(status, { "Content-Type": "application/xml", Connection: "close" })
    .end(
      `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
    );
}
