/**
 * One delivery attempt: POST the signed JSON body to a checked receiver, connected to the
 * addresses checked a moment ago (no DNS rebinding), with one 10 s deadline, no redirects
 * followed, no cookies or keys sent, and at most 64 KB of the answer read (then dropped).
 */
import http from "node:http";
import https from "node:https";
import { pinnedLookup, type ResolvedAddress, type Target } from "../../net/public-target.js";

const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = "kinora-webhooks/1.0";

/** How an attempt ended: an HTTP answer (any status), or no answer (network, timeout). */
export type AttemptResult =
  | { kind: "answer"; status: number; retryAfter: string | null }
  | { kind: "no_answer"; error: string };

function describe(code: string | undefined): string {
  if (!code) return "connection failed";
  if (/CERT|SELF_SIGNED|ERR_TLS/.test(code)) return "TLS certificate not valid for the host";
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ECONNRESET" || code === "EPIPE") return "connection reset";
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return "host unreachable";
  return code;
}

/** Sends once; never throws (every failure is an AttemptResult). */
export function postOnce(
  to: { target: Target; addresses: ResolvedAddress[] },
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; ca?: Buffer },
): Promise<AttemptResult> {
  const { target, addresses } = to;
  const mod = target.url.protocol === "https:" ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const done = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const req = mod.request({
      protocol: target.url.protocol,
      hostname: target.host,
      port: target.url.port || undefined,
      path: `${target.url.pathname}${target.url.search}`,
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "user-agent": USER_AGENT,
      },
      agent: false,
      lookup: pinnedLookup(addresses),
      ...(opts.ca ? { ca: opts.ca } : {}),
    });
    const timer = setTimeout(
      () => done({ kind: "no_answer", error: `timed out after ${opts.timeoutMs / 1000} s` }),
      opts.timeoutMs,
    );
    req.on("error", (err: NodeJS.ErrnoException) =>
      done({ kind: "no_answer", error: describe(err.code) }),
    );
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      const retryAfter = res.headers["retry-after"] ?? null;
      let read = 0;
      // The answer's body is read (so the receiver sees its answer taken) and discarded.
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) done({ kind: "answer", status, retryAfter });
      });
      res.on("end", () => done({ kind: "answer", status, retryAfter }));
      res.on("error", () => done({ kind: "answer", status, retryAfter }));
    });
    req.end(body);
  });
}
