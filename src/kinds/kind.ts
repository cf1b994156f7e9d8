/**
 * A job kind, declared once. A kind's folder (src/kinds/<kind>/) ends in its kind.ts, which
 * calls defineJobKind with everything composition needs to serve it: the engine's definition
 * (its table, statuses, own moves — the standard ones are generated — params, files, refund,
 * retention), the prefix of its ids, its operations and the roles the surfaces reach it by,
 * what assistants are told about it, the executor a worker runs and the feature `kinora serve`
 * mounts. src/job-kinds.ts lists the kinds (src/kinds/registry.ts checks the list at start);
 * everything below composition receives the parts it needs from here and names no kind.
 *
 * The helpers below give every kind's feature the same engine parts: its queue, its retention
 * sweeper, and the surface the other features reach it by.
 */
import type { AnyContract, Operation } from "../api/operation.js";
import type { Config } from "../config.js";
import type { BackgroundTask, Feature, FeatureFactory, Platform } from "../feature.js";
import { jobEngineDeps } from "../feature.js";
import type { JobDefinition } from "../jobs/definition.js";
import { createJobQueue, type DefinedQueue } from "../jobs/queue.js";
import { sweepJobs } from "../jobs/retention.js";
import type { Executor } from "../jobs/work.js";
import type { KindSurface } from "../operations/kinds.js";
import type { JobCheckoutHooks, PaymentsDeps } from "../services/payments/deps.js";
import { startPeriodic } from "../services/periodic.js";
import type { FetchLike } from "../workers/transfer.js";

/** What a worker process may change about how an executor reaches the world (tests). */
export interface ExecutorSeams {
  /** How inputs are fetched and outputs sent (tests route kinora URLs in-process). */
  fetch?: FetchLike;
}

/** The contracts each surface reaches a kind's jobs by (KindSurface's roles). */
export interface KindRoles {
  /** Reads one job by its id: REST, `kinora get` and the SDK's wait helpers follow jobs with it. */
  get: AnyContract;
  /** Follows one job over MCP with the key that made it; default `get`. */
  follow?: AnyContract;
  /** This key's jobs, newest first, a page at a time. */
  list: AnyContract;
  /** Cancels a job that has not started (MCP's cancel_job runs it for the kind's ids). */
  cancel: AnyContract;
  /** Free: the kind's prices and limits (MCP's get_prices gathers every kind's). */
  prices: AnyContract;
  /** A done job's pictures (`{job_id}` → `{still, frames}`), where the kind makes them. */
  pictures?: AnyContract;
}

/**
 * A pay-per-job checkout the kind takes (restore's): the payments feature sells it — the
 * checkout pages, the Stripe webhook and card refunds call the hooks — and serves its
 * operations beside the top-ups. One kind at most (the registry refuses two).
 */
export interface KindCheckout {
  /** The kind's side: the job a checkout is for, and marking it paid. */
  hooks: JobCheckoutHooks<Platform>;
  /** Its operations (open a checkout, start or pay), bound to the payment services. */
  operations(deps: PaymentsDeps<Platform>): Operation[];
}

/**
 * The engine's definition, of any row and params: the registry holds kinds of different rows,
 * and each kind's own code keeps its precise type.
 */
// cast: a list of kinds holds definitions of every row type; each kind's own code keeps its precise type
// biome-ignore lint/suspicious/noExplicitAny: a list of kinds holds definitions of every row type
export type AnyJobDefinition = JobDefinition<any, any>;

/** What a kind declares. */
export interface JobKindDeclaration {
  /** What the job engine runs: table, statuses and moves, params, files, refund, retention. */
  definition: AnyJobDefinition;
  /**
   * Tables the kind owns besides its job table, parents first (restore: its card-refund
   * outbox). The registry refuses a table two kinds claim; `kinora admin migrate` copies them
   * right after the job table.
   */
  otherTables?: readonly string[];
  /** Its job ids are `<idPrefix>_…`; no other kind's may start the same way. */
  idPrefix: string;
  /** How messages name several jobs of the kind ("restores", "clips"). */
  plural: string;
  /**
   * Every operation of the kind (implementations, or anything with its contract): the
   * registry checks their ids, REST routes and tool names against every other kind's.
   */
  operations: readonly { readonly contract: AnyContract }[];
  /**
   * Which of those the surfaces reach the kind's jobs by. Absent: no caller reaches the kind's
   * jobs (another kind's work units, e.g. a restore's segments): no surface lists it.
   */
  roles?: KindRoles;
  /** What an assistant is told about the kind's flow at `initialize`, step by step. */
  instructions: string;
  /** How the console's ledger shows a line the kind wrote (restore: older lines' quality keys). */
  ledgerText?(reason: string): string;
  /** Its pay-per-job checkout, where it takes one (served by the payments feature). */
  checkout?: KindCheckout;
  /** The executor this machine's configuration asks for: what `kinora worker` runs. */
  executor(config: Config, seams?: ExecutorSeams): Executor;
  /** The kind's feature for `kinora serve`: operations, queue, in-process executor, sweeper. */
  feature(): FeatureFactory;
  /**
   * A job as its REST read shows it (webhook payloads show the same object); absent: payloads
   * show the engine's columns.
   */
  // cast: each kind's view takes its own row type (contravariant), so the list's type can only say any
  // biome-ignore lint/suspicious/noExplicitAny: each kind's view takes its own row type
  view?(p: Platform): (row: any) => Promise<unknown>;
}

/** A declared kind: its declaration and the names the registry checks for uniqueness. */
export interface JobKind extends JobKindDeclaration {
  /** The kind's name (the definition's `kind`). */
  name: string;
  table: string;
  /** Every table of the kind: its job table, then its `otherTables`. */
  tables: readonly string[];
  /** The first segment of its storage keys (`restore/rj_…/input`). */
  fileArea: string;
  noun: string;
}

/** Why a declaration cannot stand on its own, or undefined. */
function declarationProblem(d: JobKindDeclaration): string | undefined {
  const def = d.definition;
  const name = def.kind;
  if (!/^[a-z][a-z0-9]{0,15}$/.test(d.idPrefix)) {
    return `job kind "${name}": idPrefix "${d.idPrefix}" must be lower-case letters and digits (up to 16), starting with a letter`;
  }
  const sample = `${d.idPrefix}_0123456789abcdef`;
  if (!def.fileLayout.idPattern.test(sample)) {
    return `job kind "${name}": its file layout's idPattern does not accept its own ids (${sample})`;
  }
  const contracts = new Set(d.operations.map((op) => op.contract));
  for (const [role, contract] of Object.entries(d.roles ?? {})) {
    if (contract && !contracts.has(contract)) {
      return `job kind "${name}": its ${role} operation ${contract.id} is not among its operations`;
    }
  }
  const tools = new Set(d.operations.flatMap((op) => op.contract.mcp?.name ?? []));
  for (const { contract } of d.operations) {
    const follow = contract.mcp?.followedBy;
    if (follow !== undefined && !tools.has(follow)) {
      return `job kind "${name}": tool ${contract.mcp?.name} is followed by ${follow}, which is not one of its tools`;
    }
  }
  return undefined;
}

/**
 * A job kind from its declaration; throws (at start: kind.ts modules load with the registry)
 * when the declaration contradicts itself — an id prefix its own file layout refuses, a role
 * that is not one of its operations, a task followed by a tool it does not have.
 */
export function defineJobKind(
  d: JobKindDeclaration & { roles: KindRoles },
): JobKind & { roles: KindRoles };
export function defineJobKind(d: JobKindDeclaration): JobKind;
export function defineJobKind(d: JobKindDeclaration): JobKind {
  const problem = declarationProblem(d);
  if (problem) throw new Error(problem);
  return {
    ...d,
    name: d.definition.kind,
    table: d.definition.table,
    tables: [d.definition.table, ...(d.otherTables ?? [])],
    fileArea: d.definition.fileLayout.area,
    noun: d.definition.noun,
  };
}

/**
 * How the other features reach the kind: its operations (bound by its feature) by role. Every
 * role's operation must be among `operations` (defineJobKind checked the contracts).
 */
export function kindSurface(kind: JobKind, operations: readonly Operation[]): KindSurface {
  const roles = kind.roles;
  if (!roles) throw new Error(`job kind "${kind.name}" has no roles: no surface reaches it`);
  const bound = (contract: AnyContract): Operation => {
    const op = operations.find((o) => o.contract === contract);
    if (!op) throw new Error(`job kind "${kind.name}" serves no ${contract.id} operation`);
    return op;
  };
  return {
    name: kind.name,
    noun: kind.noun,
    plural: kind.plural,
    idPrefix: kind.idPrefix,
    contracts: kind.operations.map((op) => op.contract),
    get: bound(roles.get),
    follow: bound(roles.follow ?? roles.get),
    list: bound(roles.list),
    cancel: bound(roles.cancel),
    prices: bound(roles.prices),
    ...(roles.pictures ? { pictures: roles.pictures } : {}),
    instructions: kind.instructions,
    ...(kind.ledgerText ? { ledgerText: kind.ledgerText } : {}),
  };
}

/**
 * The kind's queue on this platform (claims, reports, lease recovery); the kind joins the
 * platform's list the queue estimate reads.
 */
export function kindQueue(def: AnyJobDefinition, p: Platform): DefinedQueue {
  p.jobKinds.register(def);
  return createJobQueue(def, jobEngineDeps(p));
}

/** Runs the kind's retention rules every `everyMs` (and once at start). */
export function startSweeper(def: AnyJobDefinition, p: Platform, everyMs = 60_000): BackgroundTask {
  const deps = jobEngineDeps(p);
  const pass = async () => {
    const counts = await sweepJobs(def, deps);
    if (counts.some((c) => c > 0)) deps.log.info("retention sweep", { kind: def.kind, counts });
  };
  return startPeriodic(everyMs, pass, deps.log, `retention sweep of ${def.kind}`);
}

/** What a kind's feature adds to the parts every kind has. */
interface KindFeatureParts {
  /** The kind's operations, bound to its services. */
  operations: Operation[];
  /** What this process's workers run for the kind (none: only remote workers). */
  executors: Executor[];
  sweepEveryMs?: number;
  routes?: Feature["routes"];
  /** Background work of the kind's own, started after its sweeper. */
  start?(): void;
}

/**
 * A kind's feature: its operations and surface, its queue, the in-process executors and its
 * retention sweeper — the same for every kind, plus what `parts` adds.
 */
export function kindFeature(kind: JobKind, p: Platform, parts: KindFeatureParts): Feature {
  return {
    name: kind.name,
    ...(kind.roles ? { kind: kindSurface(kind, parts.operations) } : {}),
    operations: parts.operations,
    queues: [kindQueue(kind.definition, p)],
    executors: parts.executors,
    ...(parts.routes ? { routes: parts.routes } : {}),
    start: async () => {
      const sweeper = startSweeper(kind.definition, p, parts.sweepEveryMs);
      parts.start?.();
      return sweeper;
    },
  };
}

/** The executors of every kind, for `kinora worker`: one per registry entry. */
export function workerExecutors(
  kinds: readonly JobKind[],
  config: Config,
  seams?: ExecutorSeams,
): Executor[] {
  return kinds.map((k) => k.executor(config, seams));
}

/**
 * Every table of the kinds, kind by kind in registry order (a kind whose tables reference
 * another kind's comes after it): what `kinora admin migrate` copies between the tables every
 * kind builds on and those that name jobs of any kind.
 */
export function kindTables(kinds: readonly JobKind[]): string[] {
  return kinds.flatMap((k) => k.tables);
}
