/**
 * Client for the Cog HTTP prediction protocol (what `cog` containers serve, and the shape
 * Replicate's API shares).
 *
 * Protocol facts this relies on (checked against Cog's Python server and its Rust
 * "coglet" server):
 * - `PUT /predictions/{id}` with `Prefer: respond-async` (exactly that value) answers 202
 *   with `{id, status: "starting"}`. A repeat PUT with an id that is still in flight answers
 *   202 with its current state instead of starting a second run. Cog forgets finished
 *   predictions, so idempotency only covers in-flight ones.
 * - 409 means every prediction slot is busy (Cog runs one at a time by default); 422 is an
 *   input validation error; 503 means the model is not ready.
 * - Cog has no `GET /predictions/{id}` (405, "polling is not supported"): progress arrives
 *   by webhook only. Replicate-style gateways do answer GET, so we poll when we can.
 * - `POST /predictions/{id}/cancel` answers 200 `{}` when it cancelled an in-flight
 *   prediction and 404 `{}` when the id is unknown or already finished.
 * - `GET /health-check` always answers 200; `status` is STARTING, READY, BUSY,
 *   SETUP_FAILED, DEFUNCT or UNHEALTHY.
 */

import { isRecord, recordOf } from "../../domain/records.js";
import {
  type FinalPrediction,
  finalize,
  isTerminal,
  isValidPredictionId,
  type Prediction,
  parsePrediction,
  type WebhookEvent,
} from "./prediction.js";
import type { PredictionWaiter } from "./waiter.js";

type CogErrorCode =
  | "busy"
  | "conflict"
  | "invalid_input"
  | "not_ready"
  | "unauthorized"
  | "http"
  | "network"
  | "bad_response"
  | "unsupported"
  | "not_found"
  | "timeout"
  | "failed"
  | "canceled";

export class CogError extends Error {
  constructor(
    readonly code: CogErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "CogError";
  }
}

interface CogClientConfig {
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` (gateways in front of Cog; Cog itself has no auth). */
  token?: string;
  fetchImpl?: typeof fetch;
  pollIntervalMs?: number;
  /** Default deadline for `run`. */
  timeoutMs?: number;
  /** Deadline for each HTTP request. */
  requestTimeoutMs?: number;
  /** Cap on a response body (predictions may carry data-URL outputs). */
  maxResponseBytes?: number;
}

interface CogHealth {
  status: string;
  ready: boolean;
  body: Record<string, unknown>;
}

interface StartOptions {
  webhookUrl?: string;
  webhookEventsFilter?: WebhookEvent[];
  signal?: AbortSignal;
}

interface RunOptions extends StartOptions {
  /** Deadline for the whole run; on expiry the prediction is cancelled. */
  timeoutMs?: number;
  /** Webhook deliveries land here; needs `webhookUrl` pointing at our receiver. */
  waiter?: PredictionWaiter;
  /** Sees non-terminal states (from webhooks or polls), e.g. for progress. */
  onUpdate?: (p: Prediction) => void;
}

interface CogClient {
  health(signal?: AbortSignal): Promise<CogHealth>;
  startPrediction(
    id: string,
    input: Record<string, unknown>,
    opts?: StartOptions,
  ): Promise<Prediction>;
  /** null when the server cannot say: 404 (unknown id) or 405 (Cog: no GET endpoint). */
  getPrediction(id: string, signal?: AbortSignal): Promise<Prediction | null>;
  /** true if the server cancelled it, false if it was unknown or already finished. */
  cancel(id: string, signal?: AbortSignal): Promise<boolean>;
  run(id: string, input: Record<string, unknown>, opts?: RunOptions): Promise<FinalPrediction>;
}

interface Answer {
  status: number;
  json: unknown;
}

const START_ATTEMPTS = 3;

async function readCapped(res: Response, maxBytes: number): Promise<string> {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel();
    throw new CogError(
      "bad_response",
      `The model server's answer is larger than ${maxBytes} bytes.`,
    );
  }
  if (!res.body) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const chunk = read.value;
    total += chunk.length;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new CogError(
        "bad_response",
        `The model server's answer is larger than ${maxBytes} bytes.`,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function detailOf(json: unknown): string {
  if (isRecord(json)) {
    const d = json.detail ?? json.error;
    if (typeof d === "string") return d;
    if (Array.isArray(d) && isRecord(d[0])) {
      const msg = d[0].msg;
      if (typeof msg === "string") return msg;
    }
  }
  return "no detail";
}

function errorFor(status: number, json: unknown, what: string): CogError {
  const detail = detailOf(json);
  if (status === 401 || status === 403) {
    return new CogError("unauthorized", `The model server refused our token (${status}).`, status);
  }
  if (status === 409) {
    const code = /exist|different/i.test(detail) ? "conflict" : "busy";
    return new CogError(code, `The model server refused ${what}: ${detail}.`, status);
  }
  if (status === 422)
    return new CogError("invalid_input", `The model rejected the input: ${detail}.`, status);
  if (status === 503)
    return new CogError("not_ready", `The model server is not ready: ${detail}.`, status);
  return new CogError("http", `The model server answered ${status} to ${what}.`, status);
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });

/** False only for refusals that prove the server did not start this prediction. */
function mayBeRunning(err: unknown, outer: AbortSignal): boolean {
  if (outer.aborted || !(err instanceof CogError)) return true;
  return !["busy", "conflict", "invalid_input", "unauthorized", "not_ready"].includes(err.code);
}

function checkId(id: string): string {
  if (!isValidPredictionId(id)) {
    throw new CogError("invalid_input", "The prediction id must be 1–128 letters, digits, _ or -.");
  }
  return encodeURIComponent(id);
}

function parseOrThrow(json: unknown, id: string): Prediction {
  const p = parsePrediction(json, id);
  if (!p) throw new CogError("bad_response", "The model server's answer is not a prediction.");
  return p;
}

const unsupportedError = () =>
  new CogError(
    "unsupported",
    "The model server has no GET /predictions/{id}; configure a prediction webhook.",
  );

class HttpCogClient implements CogClient {
  private readonly base: string;
  private readonly doFetch: typeof fetch;
  private readonly pollIntervalMs: number;
  private readonly requestTimeoutMs: number;
  private readonly maxResponseBytes: number;
  /** Learned from a 405: this server (plain Cog) cannot be polled. */
  private getUnsupported = false;

  constructor(private readonly cfg: CogClientConfig) {
    this.base = cfg.baseUrl.replace(/\/+$/, "");
    this.doFetch = cfg.fetchImpl ?? fetch;
    this.pollIntervalMs = cfg.pollIntervalMs ?? 1000;
    this.requestTimeoutMs = cfg.requestTimeoutMs ?? 30_000;
    this.maxResponseBytes = cfg.maxResponseBytes ?? 256 * 1024 * 1024;
  }

  private async call(
    method: string,
    path: string,
    opts: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Answer> {
    const timeout = AbortSignal.timeout(this.requestTimeoutMs);
    const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
    const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
    if (this.cfg.token) headers.authorization = `Bearer ${this.cfg.token}`;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await this.doFetch(`${this.base}${path}`, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal,
        redirect: "error", // never carry the bearer token to another host
      });
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      const why = timeout.aborted ? "timed out" : err instanceof Error ? err.message : String(err);
      throw new CogError("network", `Could not reach the model server (${why}).`);
    }
    const text = await readCapped(res, this.maxResponseBytes);
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, json };
  }

  async health(signal?: AbortSignal): Promise<CogHealth> {
    const answer = await this.call("GET", "/health-check", { signal });
    const json = answer.json;
    const body = recordOf(json);
    if (answer.status !== 200 || typeof body.status !== "string") {
      throw errorFor(answer.status === 200 ? 502 : answer.status, json, "the health check");
    }
    return { status: body.status, ready: body.status === "READY", body };
  }

  async startPrediction(id: string, input: Record<string, unknown>, opts: StartOptions = {}) {
    const path = `/predictions/${checkId(id)}`;
    const body: Record<string, unknown> = { id, input };
    if (opts.webhookUrl) {
      body.webhook = opts.webhookUrl;
      if (opts.webhookEventsFilter) body.webhook_events_filter = opts.webhookEventsFilter;
    }
    const request = { body, headers: { prefer: "respond-async" }, signal: opts.signal };
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.call("PUT", path, request);
        if (answer.status >= 200 && answer.status < 300) return parseOrThrow(answer.json, id);
        throw errorFor(answer.status, answer.json, "the prediction");
      } catch (err) {
        // The PUT is idempotent, so lost requests and server hiccups are safe to retry.
        const retryable =
          err instanceof CogError &&
          (err.code === "network" || (err.code === "http" && (err.status ?? 0) >= 500));
        if (!retryable || attempt >= START_ATTEMPTS || opts.signal?.aborted) throw err;
        await sleep(200 * 4 ** (attempt - 1), opts.signal ?? new AbortController().signal);
      }
    }
  }

  async getPrediction(id: string, signal?: AbortSignal): Promise<Prediction | null> {
    const answer = await this.call("GET", `/predictions/${checkId(id)}`, { signal });
    if (answer.status === 405) this.getUnsupported = true;
    if (answer.status === 405 || answer.status === 404) return null;
    if (answer.status !== 200) throw errorFor(answer.status, answer.json, "the status request");
    return parseOrThrow(answer.json, id);
  }

  async cancel(id: string, signal?: AbortSignal): Promise<boolean> {
    const answer = await this.call("POST", `/predictions/${checkId(id)}/cancel`, { signal });
    if (answer.status === 200) return true;
    if (answer.status === 404) return false;
    throw errorFor(answer.status, answer.json, "the cancel request");
  }

  /** Polls until terminal; never settles once polling proves unsupported and a waiter exists. */
  private async poll(id: string, signal: AbortSignal, opts: RunOptions): Promise<FinalPrediction> {
    for (;;) {
      await sleep(this.pollIntervalMs, signal);
      let p: Prediction | null;
      try {
        p = await this.getPrediction(id, signal);
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        if (err instanceof CogError && (err.code === "network" || err.code === "http")) continue;
        throw err;
      }
      if (p && isTerminal(p.status)) return finalize({ ...p, status: p.status });
      if (p) opts.onUpdate?.(p);
      if (!p && !opts.waiter) {
        throw this.getUnsupported
          ? unsupportedError()
          : new CogError("not_found", `The model server no longer knows prediction ${id}.`);
      }
      if (!p && this.getUnsupported) return new Promise<never>(() => {}); // the webhook decides
    }
  }

  async run(id: string, input: Record<string, unknown>, opts: RunOptions = {}) {
    const timeoutMs = opts.timeoutMs ?? this.cfg.timeoutMs ?? 10 * 60_000;
    const deadline = AbortSignal.timeout(timeoutMs);
    const done = new AbortController();
    const outer = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
    const signal = AbortSignal.any([outer, done.signal]);
    // Wait before starting: a fast model's webhook may beat the PUT's answer.
    const viaWebhook = opts.waiter?.wait(id, signal, opts.onUpdate);
    viaWebhook?.catch(() => {});
    try {
      const webhookUrl = opts.waiter ? opts.webhookUrl : undefined;
      const started = await this.startPrediction(id, input, { ...opts, webhookUrl, signal: outer });
      if (isTerminal(started.status)) return finalize({ ...started, status: started.status });
      const viaPoll = this.poll(id, signal, opts);
      return await (viaWebhook ? Promise.race([viaWebhook, viaPoll]) : viaPoll);
    } catch (err) {
      // Whenever we stop waiting on a prediction that may be running, stop it too, so a
      // GPU slot is not held for a result nobody will collect. Best effort, on its own
      // clock: the run's signal may already be spent.
      if (mayBeRunning(err, outer)) {
        await this.cancel(id, AbortSignal.timeout(5_000)).catch(() => false);
      }
      if (!outer.aborted) throw err;
      if (opts.signal?.aborted) throw opts.signal.reason;
      const seconds = timeoutMs / 1000;
      throw new CogError(
        "timeout",
        `The prediction did not finish within ${seconds} s and was cancelled.`,
      );
    } finally {
      done.abort();
    }
  }
}

/** Creates a client for one Cog server. No I/O until a method is called. */
export function createCogClient(cfg: CogClientConfig): CogClient {
  return new HttpCogClient(cfg);
}
