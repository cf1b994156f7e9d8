/**
 * The registry check: the kinds a server runs must not collide. Two kinds with one name, one
 * table, one file area or one id prefix would read or write each other's jobs and files (an
 * upload guard that finds another kind's rules refuses the other kind's uploads), two
 * operations with one id, one REST route or one MCP tool name would shadow each other, and two
 * kinds sold by checkout would share the checkouts' job ids. Every collision is refused at
 * start, in a sentence naming both kinds.
 */
import type { AnyContract } from "../api/operation.js";
import type { JobKind } from "./kind.js";

/** One thing two kinds may not share: what it is called, and its value for a kind. */
interface Unique {
  what: string;
  of(kind: JobKind): readonly string[];
}

const restRoute = (c: AnyContract) =>
  c.rest ? [`${c.rest.method.toUpperCase()} ${c.rest.path}`] : [];

const UNIQUE: readonly Unique[] = [
  { what: "name", of: (k) => [k.name] },
  { what: "table", of: (k) => k.tables },
  { what: "file area", of: (k) => [k.fileArea] },
  // Prefixes hold no underscore (defineJobKind), so no kind's ids can start another's.
  { what: "id prefix", of: (k) => [`${k.idPrefix}_`] },
  { what: "operation id", of: (k) => k.operations.map((op) => op.contract.id) },
  { what: "REST route", of: (k) => k.operations.flatMap((op) => restRoute(op.contract)) },
  { what: "MCP tool", of: (k) => k.operations.flatMap((op) => op.contract.mcp?.name ?? []) },
  // The checkouts table names one kind's jobs (checkouts.job_id): one kind sells them.
  { what: "pay-per-job checkout", of: (k) => (k.checkout ? ["checkouts.job_id"] : []) },
];

/** Every collision between the kinds, each a sentence naming both; empty when there is none. */
export function registryProblems(kinds: readonly JobKind[]): string[] {
  const problems: string[] = [];
  for (const { what, of } of UNIQUE) {
    const owner = new Map<string, JobKind>();
    for (const kind of kinds) {
      for (const value of new Set(of(kind))) {
        const first = owner.get(value);
        if (!first) owner.set(value, kind);
        else if (first === kind) continue;
        else {
          problems.push(
            `job kinds "${first.name}" (table ${first.table}) and "${kind.name}" (table ${kind.table}) both have the ${what} ${JSON.stringify(value)}`,
          );
        }
      }
    }
  }
  return problems;
}

/** The registry is refused at start, naming every collision. */
export class RegistryError extends Error {
  override readonly name = "RegistryError";
}

/** `kinds`, once checked: throws RegistryError when two of them collide. */
export function checkRegistry<K extends JobKind>(kinds: readonly K[]): readonly K[] {
  const problems = registryProblems(kinds);
  if (problems.length > 0) {
    throw new RegistryError(`the job kinds collide:\n  ${problems.join("\n  ")}`);
  }
  return kinds;
}
