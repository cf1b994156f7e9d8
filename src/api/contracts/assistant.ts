/**
 * Tools an assistant gets as one call where REST has one per job kind: every kind's prices at
 * once, and one cancel for a job of any kind. They have no REST binding; their parts are each
 * kind's own operations, so both are made from the contracts of the kinds a server serves.
 */
import { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../../domain/error-codes.js";
import { type AnyContract, defineContract, READ_ONLY, type Remedy } from "../operation.js";
import { JobIdField, Wallet } from "../schemas.js";

/** What the assistant combinations need of a kind: its name, id prefix and two contracts. */
export interface KindContracts {
  name: string;
  plural: string;
  idPrefix: string;
  /** Cancels one job; answers `{job, …}`. */
  cancel: AnyContract;
  /** The kind's prices and limits. */
  prices: AnyContract;
}

/** The `job` of a kind's answer (`{job, …}`), as its schema; throws for an answer without one. */
export function jobSchemaOf(contract: AnyContract): z.ZodType {
  const shape = contract.output instanceof z.ZodObject ? contract.output.shape : undefined;
  const job = shape?.job;
  if (!(job instanceof z.ZodType)) throw new Error(`${contract.id} answers no job`);
  return job;
}

/** One schema of several: a union, or the schema itself when there is one. */
function oneOf(schemas: z.ZodType[]): z.ZodType {
  const [first, second, ...rest] = schemas;
  if (!first) return z.never();
  return second ? z.union([first, second, ...rest]) : first;
}

/** MCP only: every kind's prices and limits in one call, by kind name. */
export function getPricesContract(kinds: readonly KindContracts[]) {
  return defineContract({
    id: "getPrices",
    auth: "key",
    input: z.object({}).strict(),
    output: z.object(Object.fromEntries(kinds.map((k) => [k.name, k.prices.output]))),
    errors: [],
    mcp: {
      name: "get_prices",
      title: "Prices and limits",
      description: `Free. Every price and limit, by kind of job (${kinds.map((k) => k.name).join(", ")}): what each option does and costs, sizes and lengths allowed, refusal codes.`,
      annotations: READ_ONLY,
    },
  });
}

/**
 * A refusal's next step as the cancelled job's kind words it (its cancel contract's remedy),
 * for every code some kind has one for.
 */
function kindRemedies(kinds: readonly KindContracts[]): Partial<Record<ErrorCode, Remedy>> {
  // cast: a remedies table is keyed by error codes (Partial<Record<ErrorCode, Remedy>>); Object.keys types them as string
  const codes = new Set(kinds.flatMap((k) => Object.keys(k.cancel.remedies ?? {}) as ErrorCode[]));
  const byId = (id: unknown) => kinds.find((k) => String(id).startsWith(`${k.idPrefix}_`));
  return Object.fromEntries(
    [...codes].map((code): [ErrorCode, Remedy] => [
      code,
      (refer, a) => byId(a.job_id)?.cancel.remedies?.[code]?.(refer, a) ?? "",
    ]),
  );
}

/** MCP only: cancel a job of any kind by its id (the id's prefix says which kind). */
export function cancelJobContract(kinds: readonly KindContracts[]) {
  const errors = new Set<ErrorCode>(["not_found", ...kinds.flatMap((k) => k.cancel.errors)]);
  const example = `${kinds[0]?.idPrefix ?? "job"}_5pX0c1Hq3GvJ2Yb8Lw9RzA`;
  return defineContract({
    id: "cancelJob",
    auth: "key",
    input: z.object({ job_id: JobIdField(example, 120) }).strict(),
    output: z.object({ job: oneOf(kinds.map((k) => jobSchemaOf(k.cancel))), wallet: Wallet }),
    errors: [...errors],
    remedies: kindRemedies(kinds),
    mcp: {
      name: "cancel_job",
      title: "Cancel a job not yet ended",
      description: `Cancels a job (${kinds.map((k) => k.plural).join(", ")}) not yet ended, as its kind allows (a refusal says why); refunds at once, to the balance and this key's allowance. Again: unchanged.`,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
  });
}
