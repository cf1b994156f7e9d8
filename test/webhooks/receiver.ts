/**
 * A real webhook receiver on 127.0.0.1 for tests: it records every request (headers, body, when)
 * and answers each by a script — a status with headers (after a delay, if given), or `hang`
 * (never answers: the sender's time-out), then 200 once the script runs out.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export type Answer =
  | {
      status: number;
      headers?: Record<string, string> /** Answer only after this long. */;
      delayMs?: number;
    }
  | "hang";

export interface Received {
  id: string;
  attempt: number;
  timestamp: string;
  signature: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The answers still to give, in order (shared by every path). */
  script: Answer[];
  /** When set, decides each answer instead of the script. */
  respond?: (r: Received) => Answer;
  /** Resolves once `n` requests arrived (or rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(script: Answer[] = []): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, String(v)]),
      );
      const r: Received = {
        id: headers["webhook-id"] ?? "",
        attempt: Number(headers["webhook-attempt"]),
        timestamp: headers["webhook-timestamp"] ?? "",
        signature: headers["webhook-signature"] ?? "",
        headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      received.push(r);
      const answer = receiver.respond?.(r) ?? receiver.script.shift() ?? { status: 200 };
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      const send = () => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end("ok");
      };
      if (answer.delayMs) {
        hanging.add(res);
        setTimeout(send, answer.delayMs);
      } else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    script,
    async waitFor(n, ms = 20_000) {
      const until = Date.now() + ms;
      while (received.length < n) {
        if (Date.now() > until) {
          throw new Error(`receiver got ${received.length} of ${n} requests in ${ms} ms`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  return receiver;
}
