/**
 * What callers and the operator do in the simulation, through the real HTTP routes: make
 * wallets and keys, top up (some deliveries repeated), revoke keys, pause wallets, create,
 * upload, start and cancel restores and clips, and pay a restore by card (the payments side's
 * hook). Each operation predicts its answer from the model, checks it, and updates the model.
 */
import { expect } from "vitest";
import { CLIP_PRICE_CENTS, CLIP_UPLOAD_WINDOW_SEC } from "../../src/kinds/clips/rules/rules.js";
import { RESTORE_UPLOAD_WINDOW_SEC } from "../../src/kinds/restore/rules/limits.js";
import { priceRestore } from "../../src/kinds/restore/rules/pricing.js";
import { markCheckoutPaid } from "../../src/kinds/restore/services/checkout-hooks.js";
import { ADMIN_TOKEN, type TestApp } from "../app.js";
import {
  kindNamed,
  type Model,
  type SimJob,
  type SimKey,
  type SimWallet,
  setStatus,
  waitingOf,
} from "./model.js";

export type Rand = () => number;
export const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

export async function newWallet(t: TestApp, model: Model): Promise<void> {
  const res = await t.call("POST", "/wallet", { body: {} });
  expect(res.status).toBe(200);
  model.wallets.push({
    id: res.body.wallet.wallet_id,
    secret: res.body.key,
    balance: 0,
    paused: false,
    keys: [],
  });
  if (model.cfg.webhookUrl) {
    const ep = await t.call("POST", "/wallet/webhooks", {
      key: res.body.key,
      body: { url: model.cfg.webhookUrl, events: ["job.completed"] },
    });
    expect(ep.status, JSON.stringify(ep.body)).toBe(200);
  }
}

export async function topUp(t: TestApp, w: SimWallet, rand: Rand, step: number): Promise<void> {
  const amount = 500 + Math.floor(rand() * 4000);
  const body = { amount_cents: amount, reason: "simulation top-up", reference: `sim-${step}` };
  const res = await t.call("POST", `/admin/wallets/${w.id}/credit`, { headers: admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.applied).toBe(true);
  w.balance += amount;
  expect(res.body.balance_cents).toBe(w.balance);
}

/** A top-up delivered twice (a redelivered webhook, a retried request) credits once. */
export async function topUpRepeat(t: TestApp, w: SimWallet, step: number): Promise<void> {
  const body = {
    amount_cents: 500,
    reason: "simulation top-up",
    reference: `sim-${w.id}-r${step}`,
  };
  for (let i = 0; i < 2; i++) {
    const res = await t.call("POST", `/admin/wallets/${w.id}/credit`, { headers: admin, body });
    expect(res.status).toBe(200);
    expect(res.body.applied, `delivery ${i + 1} of one top-up`).toBe(i === 0);
  }
  w.balance += 500;
}

export async function newKey(t: TestApp, w: SimWallet, rand: Rand): Promise<void> {
  const limit = 100 + Math.floor(rand() * 4000);
  const res = await t.call("POST", "/wallet/keys", {
    key: w.secret,
    body: { limit_cents: limit, ask_before_spending: false },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  w.keys.push({ id: res.body.agent_key.id, secret: res.body.key, limit, spent: 0, revoked: false });
}

export async function revokeKey(t: TestApp, w: SimWallet, k: SimKey): Promise<void> {
  const res = await t.call("POST", `/wallet/keys/${k.id}/revoke`, { key: w.secret });
  expect(res.status).toBe(200);
  k.revoked = true;
}

export async function togglePause(t: TestApp, w: SimWallet): Promise<void> {
  const path = `/admin/wallets/${w.id}/${w.paused ? "unpause" : "pause"}`;
  const res = await t.call("POST", path, { headers: admin, body: {} });
  expect(res.status).toBe(200);
  w.paused = !w.paused;
  expect(res.body.paused).toBe(w.paused);
}

/** The answer a charge of `price` by `key` (or the wallet key) must get. */
function expectedCharge(w: SimWallet, key: SimKey | null, price: number): number {
  if (key?.revoked) return 401;
  if (w.paused) return 403;
  if (w.balance < price) return 402;
  if (key && key.limit - key.spent < price) return 402;
  return 200;
}

interface CreateArgs {
  wallet: SimWallet | null;
  key: SimKey | null;
  bytes: Uint8Array;
  rand: Rand;
}

export async function createRestore(t: TestApp, model: Model, a: CreateArgs): Promise<void> {
  const durationSec = pick(a.rand, [20, 45, 90, 240]);
  const quality = pick(a.rand, ["faithful", "enhanced", "enhanced_max"] as const);
  const price = priceRestore({ durationSec, quality }).amountCents;
  const body = {
    duration_sec: durationSec,
    quality,
    filename: "home.mp4",
    content_type: "video/mp4",
    size: a.bytes.length,
    ...(a.wallet ? {} : { email: "sim@example.com" }),
  };
  const secret = a.key?.secret ?? a.wallet?.secret;
  const res = await t.call("POST", "/cloud/jobs", { key: secret, body });
  const expected = a.wallet ? expectedCharge(a.wallet, a.key, price) : 200;
  expect(res.status, JSON.stringify(res.body)).toBe(expected);
  if (res.status !== 200) return;
  expect(res.body.job.amount_cents).toBe(price);
  const now = t.clock.now().getTime();
  const job = newJob("restore", res.body, a, price, now, RESTORE_UPLOAD_WINDOW_SEC);
  setStatus(job, a.wallet ? "awaiting_upload" : "pending_payment");
  model.charge(job);
  model.jobs.push(job);
}

export async function createClip(t: TestApp, model: Model, a: CreateArgs & { w: SimWallet }) {
  const size = pick(a.rand, ["480p", "720p"] as const);
  const price = CLIP_PRICE_CENTS[size];
  const body = {
    prompt: "slow push in, rain on the window",
    content_type: "image/jpeg",
    image_bytes: a.bytes.length,
    size,
  };
  const res = await t.call("POST", "/motion/jobs", { key: a.key?.secret ?? a.w.secret, body });
  expect(res.status, JSON.stringify(res.body)).toBe(expectedCharge(a.w, a.key, price));
  if (res.status !== 200) return;
  const now = t.clock.now().getTime();
  const job = newJob("clip", res.body, a, price, now, CLIP_UPLOAD_WINDOW_SEC);
  setStatus(job, "awaiting_upload");
  model.charge(job);
  model.jobs.push(job);
}

/** The model's job for a create's 200 answer (REST's body, or MCP's structuredContent). */
export function newJob(
  kind: SimJob["kind"],
  // biome-ignore lint/suspicious/noExplicitAny: the create response's JSON
  body: any,
  a: CreateArgs,
  price: number,
  now: number,
  windowSec: number,
): SimJob {
  return {
    kind,
    id: body.job.id,
    wallet: a.wallet,
    key: a.key,
    price,
    byCard: a.wallet === null,
    cardPaid: false,
    status: "",
    path: [],
    upload: { url: body.upload_url, headers: body.upload_headers, bytes: a.bytes },
    uploaded: false,
    createdAt: now,
    uploadDeadline: now + windowSec * 1000,
    attempts: 0,
    lease: null,
    outputStored: false,
    expiresAt: null,
    refunds: 0,
    cardRefunds: 0,
  };
}

/** PUTs the file; only a job still waiting for it, within its link's life, accepts it once. */
export async function uploadFile(t: TestApp, job: SimJob): Promise<void> {
  const res = await t.fetchUrl(job.upload.url, {
    method: "PUT",
    headers: job.upload.headers,
    body: new Uint8Array(job.upload.bytes),
  });
  await res.arrayBuffer();
  const waiting = ["awaiting_upload", "pending_payment"].includes(job.status);
  const open = t.clock.now().getTime() < job.uploadDeadline;
  const accepts = waiting && open && !job.uploaded;
  expect(res.ok, `upload to ${job.id} (${job.status}, uploaded ${job.uploaded})`).toBe(accepts);
  if (accepts) job.uploaded = true;
}

/** The key a command on the job is sent with: its own, or sometimes the wallet key. */
function commandKey(job: SimJob, rand: Rand): { secret: string; revoked: boolean } {
  const w = job.wallet as SimWallet;
  if (!job.key || rand() < 0.3) return { secret: w.secret, revoked: false };
  return { secret: job.key.secret, revoked: job.key.revoked };
}

/** `/cloud/jobs/rj_…`: the job's own path, its kind's read operation's REST path. */
function jobPath(job: SimJob): string {
  const path = kindNamed(job.kind).roles?.get.rest?.path;
  if (!path) throw new Error(`the kind "${job.kind}" has no REST read`);
  return path.replace("{id}", job.id);
}

export async function startJob(t: TestApp, job: SimJob, rand: Rand): Promise<void> {
  const k = commandKey(job, rand);
  const res = await t.call("POST", `${jobPath(job)}/start`, { key: k.secret });
  if (k.revoked) return void expect(res.status).toBe(401);
  const started = ["queued", "processing", "done"].concat(
    job.kind === "restore" ? ["failed", "refunded"] : [],
  );
  let expected: number;
  if (started.includes(job.status)) expected = 200;
  else if (job.status !== "awaiting_upload") expected = 409;
  else expected = job.uploaded ? 200 : 400;
  expect(res.status, `start ${job.id} (${job.status}): ${JSON.stringify(res.body)}`).toBe(expected);
  if (expected === 200 && job.status === "awaiting_upload") {
    setStatus(job, waitingOf(job.kind));
  }
}

export async function cancelJob(t: TestApp, model: Model, job: SimJob, rand: Rand) {
  const k = commandKey(job, rand);
  const res = await t.call("POST", `${jobPath(job)}/cancel`, { key: k.secret });
  if (k.revoked) return void expect(res.status).toBe(401);
  // A restore can be cancelled until it ends, file or not, a worker on it or not (its late
  // reports then find the lease gone); a clip only while its image is missing (a clip whose
  // image arrived may already be moderated and queued).
  const cancellable =
    job.kind === "restore"
      ? ["awaiting_upload", "processing"].includes(job.status)
      : job.status === "awaiting_upload" && !job.uploaded;
  const expected = cancellable || job.status === "cancelled" ? 200 : 409;
  expect(res.status, `cancel ${job.id} (${job.status}): ${JSON.stringify(res.body)}`).toBe(
    expected,
  );
  if (cancellable) model.end(job, "cancelled", true, t.clock.now().getTime());
}

/**
 * A restore's upload still streaming when the job is cancelled: the cancel refunds at once, and
 * the upload, when its last byte arrives, is refused (409) and leaves no file (checks.ts holds
 * every cancelled restore to having none).
 */
export async function uploadRacingCancel(t: TestApp, model: Model, job: SimJob): Promise<void> {
  let push: ReadableStreamDefaultController<Uint8Array> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      push = c;
    },
  });
  const half = Math.floor(job.upload.bytes.length / 2);
  const put = t.fetchUrl(job.upload.url, {
    method: "PUT",
    headers: job.upload.headers,
    body,
    duplex: "half",
  } as RequestInit);
  push?.enqueue(new Uint8Array(job.upload.bytes.subarray(0, half)));
  await new Promise((r) => setTimeout(r, 20));
  const cancel = await t.call("POST", `/cloud/jobs/${job.id}/cancel`, {
    key: (job.wallet as SimWallet).secret,
  });
  expect(cancel.status, `cancel ${job.id} mid-upload: ${JSON.stringify(cancel.body)}`).toBe(200);
  model.end(job, "cancelled", true, t.clock.now().getTime());
  push?.enqueue(new Uint8Array(job.upload.bytes.subarray(half)));
  push?.close();
  const res = await put;
  const answer = (await res.json()) as { code?: string };
  expect(res.status, `upload to ${job.id} finished after its cancel`).toBe(409);
  expect(answer.code).toBe("wrong_state");
}

/** The card payment of a checkout restore arrives (webhooks repeat; a late one is refunded). */
export async function payByCard(t: TestApp, job: SimJob, step: number): Promise<void> {
  await markCheckoutPaid(t.deps, job.id, { paymentRef: `cs_sim_${step}` });
  if (job.cardPaid) return;
  if (job.status === "pending_payment") {
    job.cardPaid = true;
    setStatus(job, "processing");
  } else if (job.status === "expired") {
    job.cardPaid = true;
    job.cardRefunds = 1;
  }
}
