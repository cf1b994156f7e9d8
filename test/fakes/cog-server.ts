/**
 * A fake Cog model server on 127.0.0.1, speaking the Cog HTTP prediction protocol over real
 * HTTP so the client is tested against the wire, not a mock:
 *
 * - GET /health-check → 200 `{status: READY|BUSY|…}` (always 200, like Cog)
 * - PUT /predictions/{id} → sync 200 with the final prediction, or 202 `{id, status}` with
 *   `Prefer: respond-async`; a repeat PUT with the same id answers 202 with the current state
 *   (no second run); same id with different input → 409; all slots busy → 409
 * - GET /predictions/{id} → the prediction (Replicate-style), or 405 when `supportsGet: false`
 *   (real Cog has no such route)
 * - POST /predictions/{id}/cancel → 200 `{}` if in flight, else 404 `{}`
 * - webhooks POSTed to `webhook` for the events in `webhook_events_filter`, signed like
 *   Replicate when `webhookSecret` is set, retried on failure, optionally duplicated and
 *   delivered out of order.
 *
 * Unlike Cog, which forgets finished predictions, the fake keeps them so tests can inspect
 * them (and a late repeat PUT still does not start a second run).
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { handlePredictionWebhook, type PredictionWaiter } from "../../src/engines/cog/webhook.js";
import { createSigner, type Signer } from "../../src/signing.js";
import { webhookHeaders } from "../../src/standard-webhooks.js";

export type FakeStatus = "starting" | "processing" | "succeeded" | "failed" | "canceled";

export interface FakePrediction {
  id: string;
  status: FakeStatus;
  input: Record<string, unknown>;
  output: unknown;
  error: string | null;
  logs: string;
  metrics: Record<string, unknown>;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export interface FakeModelContext {
  id: string;
  input: Record<string, unknown>;
  /** Aborted when the prediction is cancelled. */
  signal: AbortSignal;
  log(line: string): void;
  /** Serves bytes from this server; returns their URL. */
  serveFile(bytes: Buffer, contentType: string, name?: string): string;
}

export type FakeModel = (ctx: FakeModelContext) => Promise<unknown>;

export interface FakeCogOptions {
  model?: FakeModel;
  token?: string;
  webhookSecret?: string;
  /** Time spent "starting" before the model runs. */
  delayMs?: number;
  /** Every prediction fails with this error. */
  failWith?: string;
  /** Prediction slots; Cog's default is 1. */
  concurrency?: number;
  supportsGet?: boolean;
  webhookDuplicates?: boolean;
  /** Hold webhooks and send them newest-first once the prediction completes. */
  webhookOutOfOrder?: boolean;
  webhookRetries?: number;
}

export interface FakeCogServer {
  url: string;
  /** The server's current view of a prediction. */
  prediction(id: string): FakePrediction | undefined;
  stats: {
    runsStarted: number;
    cancelRequests: string[];
    requests: { method: string; path: string; prefer?: string }[];
    webhookAttempts: number;
    webhookStatuses: number[];
  };
  /** Resolves when the prediction reaches a terminal state and its webhooks were sent. */
  settled(id: string): Promise<void>;
  close(): Promise<void>;
}

interface Run {
  prediction: FakePrediction;
  inputJson: string;
  abort: AbortController;
  webhook?: string;
  events: Set<string>;
  held: string[];
  sending: Promise<void>;
  done: Promise<void>;
}

const MAX_BODY_BYTES = 100 * 1024 * 1024;

async function readBody(req: IncomingMessage, max = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > max) throw new Error("body too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Key-order-independent JSON, to compare inputs of repeat PUTs. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const TERMINAL = ["succeeded", "failed", "canceled"];

/** The fake's state and behaviour; `startFakeCogServer` puts it behind node:http. */
class FakeCog {
  readonly runs = new Map<string, Run>();
  readonly files = new Map<string, { bytes: Buffer; contentType: string }>();
  readonly stats: FakeCogServer["stats"] = {
    runsStarted: 0,
    cancelRequests: [],
    requests: [],
    webhookAttempts: 0,
    webhookStatuses: [],
  };
  url = "";

  constructor(private readonly opts: FakeCogOptions) {}

  /** One delivery with retries on failure, like Cog's and Replicate's senders. */
  private async post(run: Run, body: string) {
    for (let attempt = 0; attempt <= (this.opts.webhookRetries ?? 3); attempt++) {
      this.stats.webhookAttempts++;
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (this.opts.webhookSecret) {
        Object.assign(headers, webhookHeaders(body, this.opts.webhookSecret));
      }
      try {
        const res = await fetch(run.webhook ?? "", { method: "POST", headers, body });
        await res.arrayBuffer();
        this.stats.webhookStatuses.push(res.status);
        if (res.ok) return;
      } catch {
        this.stats.webhookStatuses.push(0);
      }
      await sleep(20 * 2 ** attempt);
    }
  }

  private emit(run: Run, event: string) {
    if (!run.webhook || !run.events.has(event)) return;
    const body = JSON.stringify(run.prediction);
    const copies = this.opts.webhookDuplicates ? [body, body] : [body];
    if (this.opts.webhookOutOfOrder) {
      run.held.push(...copies);
      return;
    }
    // Sequential per prediction, like a real sender's queue.
    run.sending = run.sending.then(async () => {
      for (const b of copies) await this.post(run, b);
    });
  }

  private context(run: Run): FakeModelContext {
    const p = run.prediction;
    return {
      id: p.id,
      input: p.input,
      signal: run.abort.signal,
      log: (line) => {
        p.logs += `${line}\n`;
        this.emit(run, "logs");
      },
      serveFile: (bytes, contentType, name = "output.bin") => {
        const key = `${randomBytes(8).toString("hex")}-${name}`;
        this.files.set(key, { bytes, contentType });
        return `${this.url}/files/${key}`;
      },
    };
  }

  private async execute(run: Run) {
    const p = run.prediction;
    this.emit(run, "start");
    await sleep(this.opts.delayMs ?? 0);
    const started = Date.now();
    p.status = "processing";
    p.started_at = new Date().toISOString();
    try {
      if (run.abort.signal.aborted) throw new Error("canceled");
      const output = await (this.opts.model ?? (async () => "ok"))(this.context(run));
      if (this.opts.failWith) throw new Error(this.opts.failWith);
      p.output = output;
      this.emit(run, "output");
      p.status = "succeeded";
    } catch (err) {
      p.status = run.abort.signal.aborted ? "canceled" : "failed";
      p.error = p.status === "failed" ? (err as Error).message : null;
    }
    p.completed_at = new Date().toISOString();
    p.metrics = { predict_time: (Date.now() - started) / 1000 };
    this.emit(run, "completed");
    for (const b of run.held.reverse()) run.sending = run.sending.then(() => this.post(run, b));
    await run.sending;
  }

  private startRun(id: string, body: Record<string, unknown>): Run {
    const input = (body.input ?? {}) as Record<string, unknown>;
    const filter = Array.isArray(body.webhook_events_filter)
      ? (body.webhook_events_filter as string[])
      : ["start", "output", "logs", "completed"];
    const now = new Date().toISOString();
    const run: Run = {
      prediction: {
        id,
        status: "starting",
        input,
        output: null,
        error: null,
        logs: "",
        metrics: {},
        created_at: now,
        started_at: null,
        completed_at: null,
      },
      inputJson: stableJson(input),
      abort: new AbortController(),
      webhook: typeof body.webhook === "string" ? body.webhook : undefined,
      events: new Set(filter),
      held: [],
      sending: Promise.resolve(),
      done: Promise.resolve(),
    };
    this.runs.set(id, run);
    this.stats.runsStarted++;
    run.done = this.execute(run);
    return run;
  }

  private busy(): boolean {
    const inFlight = [...this.runs.values()].filter(
      (r) => !TERMINAL.includes(r.prediction.status),
    ).length;
    return inFlight >= (this.opts.concurrency ?? 1);
  }

  private async put(req: IncomingMessage, res: ServerResponse, id: string) {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse((await readBody(req)).toString() || "{}");
    } catch {
      return send(res, 400, { detail: "invalid JSON" });
    }
    if (body.id !== undefined && body.id !== id) {
      const msg = "prediction ID must match the ID supplied in the URL";
      return send(res, 422, { detail: [{ loc: ["body", "id"], msg, type: "value_error" }] });
    }
    const existing = this.runs.get(id);
    if (existing) {
      if (existing.inputJson !== stableJson(body.input ?? {})) {
        return send(res, 409, { detail: `prediction ${id} already exists with different input` });
      }
      return send(res, 202, existing.prediction);
    }
    if (this.busy()) return send(res, 409, { detail: "Already running a prediction" });
    const run = this.startRun(id, body);
    if (req.headers.prefer === "respond-async") return send(res, 202, { id, status: "starting" });
    await run.done;
    send(res, 200, run.prediction);
  }

  private cancel(res: ServerResponse, id: string) {
    this.stats.cancelRequests.push(id);
    const run = this.runs.get(id);
    if (!run || TERMINAL.includes(run.prediction.status)) return send(res, 404, {});
    run.abort.abort();
    send(res, 200, {});
  }

  async route(req: IncomingMessage, res: ServerResponse) {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const prefer = req.headers.prefer as string | undefined;
    this.stats.requests.push({ method: req.method ?? "", path, prefer });
    const file = /^\/files\/([\w.-]+)$/.exec(path);
    if (file && req.method === "GET") {
      const f = this.files.get(file[1]!);
      if (!f) return send(res, 404, {});
      res.writeHead(200, { "content-type": f.contentType, "content-length": f.bytes.length });
      return res.end(f.bytes);
    }
    if (this.opts.token && req.headers.authorization !== `Bearer ${this.opts.token}`) {
      return send(res, 401, { detail: "Unauthenticated" });
    }
    if (path === "/health-check" && req.method === "GET") {
      return send(res, 200, { status: this.busy() ? "BUSY" : "READY" });
    }
    const m = /^\/predictions\/([^/]+)(\/cancel)?$/.exec(path);
    if (!m) return send(res, 404, { detail: "Not Found" });
    const id = decodeURIComponent(m[1]!);
    if (m[2] && req.method === "POST") return this.cancel(res, id);
    if (!m[2] && req.method === "PUT") return this.put(req, res, id);
    if (!m[2] && req.method === "GET" && this.opts.supportsGet !== false) {
      const run = this.runs.get(id);
      return run ? send(res, 200, run.prediction) : send(res, 404, { detail: "Not Found" });
    }
    res.setHeader("allow", m[2] ? "POST" : "PUT");
    send(res, 405, { detail: "Method Not Allowed" });
  }
}

export async function startFakeCogServer(opts: FakeCogOptions = {}): Promise<FakeCogServer> {
  const fake = new FakeCog(opts);
  const server: Server = createServer((req, res) => {
    fake.route(req, res).catch((err: Error) => send(res, 500, { detail: err.message }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: fake.url,
    prediction: (id) => fake.runs.get(id)?.prediction,
    stats: fake.stats,
    settled: async (id) => {
      await fake.runs.get(id)?.done;
    },
    close: async () => {
      for (const run of fake.runs.values()) run.abort.abort();
      await Promise.allSettled([...fake.runs.values()].map((r) => r.done));
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * A webhook receiver on 127.0.0.1 that authenticates deliveries with
 * `handlePredictionWebhook` and hands them to a waiter, as the API route will.
 */
export async function startWebhookReceiver(
  waiter: PredictionWaiter,
  secret: string,
  // The signer of the URL tokens it accepts (a server's own); tests mint URLs with `tokens`.
  tokens: Signer = createSigner(`receiver-${secret}`),
) {
  const statuses: number[] = [];
  const server = createServer(async (req, res) => {
    try {
      const rawBody = await readBody(req, 64 * 1024 * 1024);
      const result = handlePredictionWebhook({
        headers: req.headers,
        rawBody,
        url: req.url ?? "/",
        secret,
        tokens,
        waiter,
      });
      statuses.push(result.status);
      send(res, result.status, result.body);
    } catch {
      send(res, 400, {});
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/cog`,
    statuses,
    tokens,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
