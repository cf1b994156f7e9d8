/**
 * A test stand-in for S3's presigned-URL check. s3rver does not verify SigV4
 * signatures, so this proxy on 127.0.0.1 recomputes the query-string
 * signature of every request (method, path, sorted query minus the signature,
 * the signed headers) and refuses a mismatch with 403 before forwarding to
 * s3rver. With it, a test proves that changing the URL, the Content-Type or
 * the Content-Length of a presigned PUT is refused.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

export interface SigV4ProxyOptions {
  targetPort: number;
  /** access key id → secret access key */
  credentials: Record<string, string>;
  now?: () => number;
}

export interface SigV4Proxy {
  url: string;
  /** Why each refused request was refused, in order. */
  refusals: string[];
  close(): Promise<void>;
}

export async function startSigV4Proxy(opts: SigV4ProxyOptions): Promise<SigV4Proxy> {
  const refusals: string[] = [];
  const now = opts.now ?? Date.now;
  const server: Server = createServer((req, res) => {
    const problem = checkPresigned(req, opts.credentials, now());
    if (problem) {
      refusals.push(problem);
      refuse(res, problem);
      return;
    }
    forward(req, res, opts.targetPort);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refusals,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function refuse(res: ServerResponse, message: string): void {
  const code = message.startsWith("expired") ? "AccessDenied" : "SignatureDoesNotMatch";
  res.writeHead(403, { "Content-Type": "application/xml", Connection: "close" });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
}

function forward(req: IncomingMessage, res: ServerResponse, targetPort: number): void {
  const upstream = httpRequest(
    {
      host: "127.0.0.1",
      port: targetPort,
      method: req.method,
      path: req.url,
      headers: req.headers,
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on("error", () => res.destroy());
  req.pipe(upstream);
}

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters. */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function parseQuery(raw: string): [string, string][] {
  if (raw === "") return [];
  return raw.split("&").map((pair) => {
    const eq = pair.indexOf("=");
    const k = eq < 0 ? pair : pair.slice(0, eq);
    const v = eq < 0 ? "" : pair.slice(eq + 1);
    return [decodeURIComponent(k), decodeURIComponent(v)];
  });
}

/** Returns why the request is refused, or null when its presigned signature holds. */
export function checkPresigned(
  req: Pick<IncomingMessage, "method" | "url" | "headers">,
  credentials: Record<string, string>,
  nowMs: number,
): string | null {
  const [rawPath = "/", rawQuery = ""] = (req.url ?? "/").split("?", 2);
  const query = parseQuery(rawQuery);
  const param = (name: string) => query.find(([k]) => k === name)?.[1];
  const algorithm = param("X-Amz-Algorithm");
  const credential = param("X-Amz-Credential");
  const amzDate = param("X-Amz-Date");
  const expires = param("X-Amz-Expires");
  const signedHeaders = param("X-Amz-SignedHeaders");
  const signature = param("X-Amz-Signature");
  if (
    algorithm !== "AWS4-HMAC-SHA256" ||
    !credential ||
    !amzDate ||
    !expires ||
    !signedHeaders ||
    !signature
  ) {
    return "not a SigV4 presigned request";
  }
  const [accessKeyId = "", ...scopeParts] = credential.split("/");
  const secret = credentials[accessKeyId];
  if (secret === undefined) return "unknown access key";
  const signedAt = Date.parse(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"),
  );
  if (Number.isNaN(signedAt)) return "bad X-Amz-Date";
  if (nowMs > signedAt + Number(expires) * 1000) return "expired: request has expired";

  const canonicalRequest = [
    req.method ?? "GET",
    rawPath
      .split("/")
      .map((seg) => uriEncode(decodeURIComponent(seg)))
      .join("/"),
    query
      .filter(([k]) => k !== "X-Amz-Signature")
      .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
      .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`)
      .join("&"),
    ...signedHeaders.split(";").map((name) => {
      const value = req.headers[name];
      const text = Array.isArray(value) ? value.join(",") : (value ?? "");
      return `${name}:${text.trim().replace(/\s+/g, " ")}`;
    }),
    "",
    signedHeaders,
    "UNSIGNED-PAYLOAD",
  ].join("\n");
  const scope = scopeParts.join("/");
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const [date = "", region = "", service = ""] = scopeParts;
  let key: Buffer = hmac(`AWS4${secret}`, date);
  for (const part of [region, service, "aws4_request"]) key = hmac(key, part);
  const expected = hmac(key, stringToSign);
  const given = Buffer.from(signature, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return "signature does not match the request";
  }
  return null;
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

function sha256Hex(data: string): string {
  return createHash("sha256").update(data).digest("hex");
}
