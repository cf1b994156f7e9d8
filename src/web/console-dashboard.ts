/**
 * What the console's dashboard shows, read through the operations as the signed-in wallet key:
 * the wallet, its keys, every job kind's latest jobs (each kind's list operation) with their
 * pictures where the kind makes them, what was spent per day, the wallet's webhook endpoints
 * (when the server serves webhooks) and a page of its ledger — the answers REST gives the same
 * key (GET /wallet, /wallet/keys, each kind's list, /wallet/spending, /wallet/webhooks,
 * /wallet/ledger).
 */
import type { Context } from "hono";
import { getSpending, listLedger } from "../api/contracts/ledger.js";
import { getWallet, listAgentKeys } from "../api/contracts/wallet.js";
import { listWebhookEndpoints } from "../api/contracts/webhooks.js";
import type { AnyContract, OutputOf } from "../api/operation.js";
import { recordOf } from "../domain/records.js";
import type { AppEnv } from "../http/env.js";
import type { KindSurface } from "../operations/kinds.js";
import type { JobList, JobPictures, JobRow } from "./console-jobs.js";
import type { DashboardView } from "./console-pages.js";
import {
  type Caller,
  callOperation,
  type PagesSurface,
  type Refusal,
  served,
} from "./operation-client.js";

/** How many of each kind's jobs the dashboard lists. */
const JOBS_SHOWN = 20;

/** A read the dashboard could not make: the page says so instead. */
export class DashboardRefused extends Error {
  override readonly name = "DashboardRefused";
  constructor(readonly refusal: Refusal) {
    super(refusal.detail);
  }
}

/** What a dashboard read needs: the surface, the page request and the caller. */
interface Reader {
  surface: PagesSurface;
  c: Context<AppEnv>;
  caller: Caller;
}

/** `contract`'s output for the caller, or DashboardRefused. */
async function read<C extends AnyContract>(
  r: Reader,
  contract: C,
  input: Record<string, unknown> = {},
): Promise<OutputOf<C>> {
  const answer = await callOperation(r.surface, r.c, { contract, input, caller: r.caller });
  if (!answer.ok) throw new DashboardRefused(answer);
  return answer.body;
}

/** A kind's list answers its jobs in its one array field (`jobs`, `clips`). */
function jobsOf(body: unknown): JobRow[] {
  const list = Object.values(recordOf(body)).find(Array.isArray);
  // cast: the one array of a kind's list answer is its jobs
  return (list ?? []) as JobRow[];
}

/** The latest jobs of `kind`, with the pictures of its done ones (where it makes them). */
async function kindJobs(r: Reader, kind: KindSurface) {
  const jobs = jobsOf(await read(r, kind.list.contract, { limit: JOBS_SHOWN }));
  const pictures = new Map<string, JobPictures>();
  const origins = new Set<string>();
  const contract = r.surface.pictures(kind);
  if (contract) {
    const done = jobs.filter((j) => j.status === "done");
    await Promise.all(
      done.map(async (j) => {
        const answer = await callOperation(r.surface, r.c, {
          contract,
          input: { job_id: j.id },
          caller: r.caller,
        });
        if (!answer.ok) return;
        // cast: an ok answer of the pictures contract: still and frames, each maybe null
        const body = answer.body as { still: { url: string } | null; frames: unknown };
        pictures.set(j.id, { still: body.still !== null, full: body.frames !== null });
        if (body.still) origins.add(new URL(body.still.url).origin);
      }),
    );
  }
  const limits = await kindLimits(r, kind);
  const list: JobList = { kind: { name: kind.name, plural: kind.plural }, jobs, limits };
  return { list, pictures, origins };
}

/**
 * What the kind takes, in a sentence ("Videos up to 6 hours and 50 GiB, …"): its prices
 * answer's `limits.summary`, where it has one; undefined otherwise or when the read is refused.
 */
async function kindLimits(r: Reader, kind: KindSurface): Promise<string | undefined> {
  const answer = await callOperation(r.surface, r.c, {
    contract: kind.prices.contract,
    input: {},
    caller: r.caller,
  });
  if (!answer.ok) return undefined;
  // cast: an ok answer of get_wallet; only limits.summary is read, and it may be absent
  const summary = (answer.body as { limits?: { summary?: unknown } }).limits?.summary;
  return typeof summary === "string" ? summary : undefined;
}

/** The ledger's lines as the kinds show them (restore names an older line's quality by label). */
function legibleLedger(kinds: readonly KindSurface[], ledger: DashboardView["ledger"]) {
  const text = (reason: string) => kinds.reduce((r, k) => k.ledgerText?.(r) ?? r, reason);
  return { ...ledger, entries: ledger.entries.map((e) => ({ ...e, reason: text(e.reason) })) };
}

/** Everything the dashboard shows but what an action adds; `ledgerBefore` pages the ledger. */
export async function loadDashboard(
  surface: PagesSurface,
  c: Context<AppEnv>,
  caller: Caller,
  ledgerBefore?: number,
): Promise<Omit<DashboardView, "csrf" | "allowLoopbackReceivers">> {
  const r: Reader = { surface, c, caller };
  const webhooks = served(surface, listWebhookEndpoints) !== undefined;
  const [wallet, keys, spending, ledger, endpoints, kinds] = await Promise.all([
    read(r, getWallet),
    read(r, listAgentKeys),
    read(r, getSpending, { days: 30 }),
    read(r, listLedger, ledgerBefore === undefined ? {} : { before: ledgerBefore }),
    webhooks ? read(r, listWebhookEndpoints) : Promise.resolve(null),
    Promise.all(surface.kinds.map((k) => kindJobs(r, k))),
  ]);
  return {
    wallet: wallet.wallet,
    keys: keys.keys,
    spending,
    ledger: legibleLedger(surface.kinds, ledger),
    endpoints: endpoints?.endpoints ?? null,
    jobs: kinds.map((k) => k.list),
    pictures: new Map(kinds.flatMap((k) => [...k.pictures])),
    imageOrigins: [...new Set(kinds.flatMap((k) => [...k.origins]))],
  };
}
