/**
 * Buys racing the owner on one agent key, all in flight at once: clip purchases over REST and
 * over MCP (`make_clip`), limit changes up and down, sometimes a revocation. No answer may be a
 * 500 (or an MCP `internal`); each buy is a charge or a 402/401/403, each limit change applies
 * or is refused 400 (below what the key spent) or 409 (revoked); and afterwards the key spent
 * exactly what the accepted buys cost, within a limit one of the accepted changes (or the
 * first) set. The accepted buys join the model as clips, so the simulation's invariants check
 * the balance, the ledger and the jobs after the race as after any other step.
 */
import { expect } from "vitest";
import { CLIP_PRICE_CENTS, CLIP_UPLOAD_WINDOW_SEC } from "../../src/kinds/clips/rules/rules.js";
import type { TestApp } from "../app.js";
import { newJob, pick, type Rand } from "./caller-ops.js";
import type { Model, SimKey, SimWallet } from "./model.js";
import { setStatus } from "./model.js";

type Surface = "rest" | "mcp";

/** One answer of the race, as either surface gave it. */
interface Answer {
  op: "buy" | "limit" | "revoke";
  surface: Surface;
  status: number;
  code?: string;
  price?: number;
  limit?: number;
  // biome-ignore lint/suspicious/noExplicitAny: the create response's JSON
  body: any;
}

/** What a race came to, for the report (and the negative control's reading). */
export interface RaceReport {
  bought: number;
  refused: Record<string, number>;
  internal: number;
  limits: { applied: number; refused: number };
  revoked: boolean;
}

/** A tool call over MCP in-process, answered as REST would be: a status and the error body. */
async function mcpTool(t: TestApp, key: string, name: string, args: Record<string, unknown>) {
  const res = await t.call("POST", "/mcp", {
    key,
    headers: { accept: "application/json, text/event-stream" },
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
  });
  const result = res.body?.result;
  if (!result) return { status: res.status >= 400 ? res.status : 500, body: res.body };
  if (!result.isError) return { status: 200, body: result.structuredContent };
  const body = JSON.parse(result.content[0].text);
  return { status: STATUS_OF[body.code as string] ?? 500, body };
}

const STATUS_OF: Record<string, number> = {
  over_limit: 402,
  needs_topup: 402,
  key_revoked: 401,
  unauthorized: 401,
  wallet_paused: 403,
};

const BUY_ANSWERS = [
  "200 ",
  "402 over_limit",
  "402 needs_topup",
  "401 key_revoked",
  "403 wallet_paused",
];
const LIMIT_ANSWERS = ["200 ", "400 invalid_field", "409 wrong_state"];

/** A race as it ran: the key, the limit it started with, every answer. */
export interface Race {
  key: SimKey;
  first: number;
  answers: Answer[];
}

/** How a race is made up; the simulation draws it all from its seed. */
interface RaceSize {
  buys?: number;
  changes?: number;
  /** The limit the key is made with. */
  first?: number;
  /** Send a lowering to a fifth of the first limit ahead of everything else. */
  lowerFirst?: boolean;
  /** Told about the key once it is made, before the race starts. */
  onKey?: (key: SimKey) => void;
}

/**
 * Makes a key on `w` and runs the race on it: every request in flight at once — `buys` clip
 * purchases (16–24 unless given), `changes` limit changes (4–6), a revocation three times in ten.
 */
export async function runRace(
  t: TestApp,
  w: SimWallet,
  rand: Rand,
  image: Uint8Array,
  size: RaceSize = {},
): Promise<Race> {
  const first = size.first ?? 300 + Math.floor(rand() * 1200);
  const made = await t.call("POST", "/wallet/keys", {
    key: w.secret,
    body: { limit_cents: first, ask_before_spending: false },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  const key: SimKey = {
    id: made.body.agent_key.id,
    secret: made.body.key,
    limit: first,
    spent: 0,
    revoked: false,
  };
  w.keys.push(key);
  size.onKey?.(key);

  const buy = async (surface: Surface): Promise<Answer> => {
    const size = pick(rand, ["480p", "720p"] as const);
    const args = {
      prompt: "rain on the window",
      content_type: "image/jpeg",
      image_bytes: image.length,
      size,
    };
    const res =
      surface === "rest"
        ? await t.call("POST", "/motion/jobs", { key: key.secret, body: args })
        : await mcpTool(t, key.secret, "make_clip", args);
    return {
      op: "buy",
      surface,
      status: res.status,
      code: res.body?.code,
      price: CLIP_PRICE_CENTS[size],
      body: res.body,
    };
  };
  const changeLimit = async (limit: number): Promise<Answer> => {
    const res = await t.call("PATCH", `/wallet/keys/${key.id}`, {
      key: w.secret,
      body: { limit_cents: limit },
    });
    return {
      op: "limit",
      surface: "rest",
      status: res.status,
      code: res.body?.code,
      limit,
      body: res.body,
    };
  };
  const revoke = async (): Promise<Answer> => {
    const res = await t.call("POST", `/wallet/keys/${key.id}/revoke`, { key: w.secret });
    return {
      op: "revoke",
      surface: "rest",
      status: res.status,
      code: res.body?.code,
      body: res.body,
    };
  };

  const work: (() => Promise<Answer>)[] = [];
  const buys = size.buys ?? 16 + Math.floor(rand() * 9);
  for (let i = 0; i < buys; i++) work.push(() => buy(rand() < 0.5 ? "rest" : "mcp"));
  const changes = size.changes ?? 4 + Math.floor(rand() * 3);
  for (let i = 0; i < changes; i++) {
    // Down and up in turn: a lowering (often below what the key has spent by then: a 400)
    // and a raise that charges queued behind it must see.
    const limit = i % 2 === 0 ? 100 + Math.floor(rand() * 600) : 1500 + Math.floor(rand() * 1500);
    work.splice(Math.floor(rand() * (work.length + 1)), 0, () => changeLimit(limit));
  }
  // A lowering sent before anything else applies (nothing is spent yet): what stays of the race
  // is charges against a limit lower than the key was made with, and raises above it.
  if (size.lowerFirst) work.unshift(() => changeLimit(Math.floor(first / 5)));
  if (rand() < 0.3) work.splice(Math.floor(rand() * (work.length + 1)), 0, revoke);
  const answers = await Promise.all(work.map((start) => start()));
  return { key, first, answers };
}

/** The race's answers counted: what the report prints. */
export function tally(race: Race): RaceReport {
  const { answers } = race;
  const refused: Record<string, number> = {};
  for (const a of answers) {
    if (a.op === "buy" && a.status !== 200)
      refused[a.code ?? "?"] = (refused[a.code ?? "?"] ?? 0) + 1;
  }
  const limits = answers.filter((a) => a.op === "limit");
  return {
    bought: answers.filter((a) => a.op === "buy" && a.status === 200).length,
    refused,
    internal: answers.filter((a) => a.status >= 500 || a.code === "internal").length,
    limits: {
      applied: limits.filter((a) => a.status === 200).length,
      refused: limits.filter((a) => a.status !== 200).length,
    },
    revoked: answers.some((a) => a.op === "revoke"),
  };
}

/**
 * Checks the race: no 500, every answer one its operation may give, and the key afterwards —
 * spent exactly what the accepted buys cost, within a limit somebody set, revoked if revoked.
 */
export async function checkRace(t: TestApp, w: SimWallet, race: Race): Promise<void> {
  const { key, first, answers } = race;
  const seen = (a: Answer) => `${a.status} ${a.code ?? ""}`;
  const internal = answers.filter((a) => a.status >= 500 || a.code === "internal");
  expect(
    internal.map((a) => `${a.op} over ${a.surface}: ${JSON.stringify(a.body)}`),
    "answers of 500 / internal in the race",
  ).toEqual([]);
  for (const a of answers) {
    const allowed = a.op === "buy" ? BUY_ANSWERS : a.op === "limit" ? LIMIT_ANSWERS : ["200 "];
    expect(allowed, `${a.op} over ${a.surface}: ${JSON.stringify(a.body)}`).toContain(seen(a));
  }
  const keys = await t.call("GET", "/wallet/keys", { key: w.secret });
  const row = (keys.body.keys as KeyRow[]).find((k) => k.id === key.id);
  const spent = bought(race).reduce((sum, a) => sum + (a.price as number), 0);
  const applied = answers.filter((a) => a.op === "limit" && a.status === 200);
  expect(row?.spent_cents, "the key spent what its accepted buys cost").toBe(spent);
  expect(spent, "spent within the limit").toBeLessThanOrEqual(row?.limit_cents ?? 0);
  expect([first, ...applied.map((a) => a.limit)], "a limit somebody set").toContain(
    row?.limit_cents,
  );
  expect(row?.revoked, "revoked").toBe(answers.some((a) => a.op === "revoke"));
  key.limit = row?.limit_cents ?? first;
}

interface KeyRow {
  id: string;
  limit_cents: number;
  spent_cents: number;
  revoked: boolean;
}

const bought = (race: Race) => race.answers.filter((a) => a.op === "buy" && a.status === 200);

/**
 * The simulation's step: a race on a new key of `w`, checked, its accepted buys added to the
 * model as clips waiting for their image (the simulation uploads, starts and cancels them).
 */
export async function raceOnOneKey(
  t: TestApp,
  model: Model,
  w: SimWallet,
  rand: Rand,
  image: Uint8Array,
): Promise<RaceReport> {
  const race = await runRace(t, w, rand, image);
  await checkRace(t, w, race);
  race.key.revoked = race.answers.some((a) => a.op === "revoke");
  const now = t.clock.now().getTime();
  for (const a of bought(race)) {
    const args = { wallet: w, key: race.key, bytes: image, rand };
    const job = newJob("clip", a.body, args, a.price as number, now, CLIP_UPLOAD_WINDOW_SEC);
    setStatus(job, "awaiting_upload");
    model.charge(job);
    model.jobs.push(job);
  }
  return tally(race);
}
