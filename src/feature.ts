/**
 * The platform every feature builds on, and the Feature seam through which restore, clips and
 * payments plug in their routes, job queues, executors and background tasks — so adding an
 * area is one line in features.ts, not edits across app.ts and server.ts.
 */
import type { Operation } from "./api/operation.js";
import type { Router } from "./http/router.js";
import type { JobDefinition, JobEngineDeps } from "./jobs/definition.js";
import type { DefinedQueue } from "./jobs/queue.js";
import type { Executor } from "./jobs/work.js";
import type { DbWorkSource } from "./jobs/work-source.js";
import type { KindSurface } from "./operations/kinds.js";
import type { BackgroundTask } from "./services/deps.js";
import type { Platform } from "./services/platform.js";

export type { BackgroundTask, Platform };

/** What buildApp hands every feature's routes: the whole app's view, not one feature's. */
export interface RouteContext {
  /** Every feature's job queues with their definitions (the worker API serves them all). */
  queues: DefinedQueue[];
  /** Every feature's operations (the MCP server offers those that have a tool). */
  operations: readonly Operation[];
  /** The job kinds this server serves (each kind's feature publishes one), in mount order. */
  kinds: readonly KindSurface[];
  /** Origins outside kinora that the pages' forms lead to (every feature's formTargets). */
  formTargets(): string[];
  /** False while starting or draining: /healthz answers 503. */
  isReady: () => boolean;
  /** The server's job system source, shared with the worker API; absent in route tests. */
  workSource?: () => DbWorkSource | undefined;
}

/** An area's part of the server: operations, routes, job queues, executors and background tasks. */
export interface Feature {
  name: string;
  /** The feature's operations: each served as a REST route and, where it has one, an MCP tool. */
  operations?: Operation[];
  /**
   * Operations made over every job kind the server serves (MCP's cancel_job and get_prices),
   * once all features are built; served like `operations`.
   */
  operationsOver?(kinds: readonly KindSurface[]): Operation[];
  /** The job kind this feature serves (a kind's own feature): how the surfaces reach it. */
  kind?: KindSurface;
  /**
   * Origins outside kinora that the owner's pages send a browser to by a form (the payments
   * feature's checkout page): the pages' CSP form-action allows them.
   */
  formTargets?(): string[];
  /** Routes that are not operations (pages, webhooks, the MCP endpoint, file links). */
  routes?(app: Router, ctx: RouteContext): void;
  /** The job kinds this feature runs (the kind's own feature: one queue, from the registry). */
  queues?: DefinedQueue[];
  /** What the in-process workers of `kinora serve` run for those kinds. */
  executors?: Executor[];
  /**
   * Background work the feature owns (sweepers, confirmers, purges of its own records);
   * started by `kinora serve`, not by route tests.
   */
  start?(): Promise<BackgroundTask>;
}

/** Builds a feature from the platform (once per server). */
export type FeatureFactory = (platform: Platform) => Feature | Promise<Feature>;

/** What the job engine needs, from the platform. */
export function jobEngineDeps(p: Platform): JobEngineDeps {
  return {
    db: p.db,
    clock: p.clock,
    log: p.log,
    storage: p.storage,
    signer: p.signer,
    publicUrl: p.publicUrl,
    retentionHours: p.config.retentionHours,
    notifyJobs: () => p.notifyJobs(),
    events: p.events,
    // Kinds register their whole definitions (kindQueue); the registry's type shows the part
    // the estimate reads.
    definition: (kind) =>
      // cast: the registry holds whole definitions of every row type; the estimate reads only JobDefinition's fields
      p.jobKinds.all().find((k) => k.kind === kind) as JobDefinition | undefined,
  };
}
