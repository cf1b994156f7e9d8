/**
 * The tools of a list of operations (those with an MCP binding): the `tools/list` answer and a
 * lookup by name, derived once per process from the contracts — never per request, where the
 * SDK would convert every schema again.
 */
import type { Tool } from "@modelcontextprotocol/server";
import type { Operation } from "../api/operation.js";
import { outputJsonSchema, toolInputJsonSchema } from "./schema.js";

export interface Catalogue {
  tools: Tool[];
  byName: ReadonlyMap<string, Operation>;
}

const catalogues = new WeakMap<readonly Operation[], Catalogue>();

/** The catalogue of `operations`, made on first use and kept as long as the list lives. */
export function catalogue(operations: readonly Operation[]): Catalogue {
  const known = catalogues.get(operations);
  if (known) return known;
  const withTools = operations.filter((op) => op.contract.mcp);
  const made: Catalogue = {
    // cast: withTools holds only operations with an mcp binding (filtered above)
    byName: new Map(withTools.map((op) => [op.contract.mcp?.name as string, op])),
    tools: withTools.map(({ contract }) => {
      // cast: withTools holds only operations with an mcp binding (filtered above)
      const tool = contract.mcp as NonNullable<typeof contract.mcp>;
      // No display title: tools/list has a budget (16,000 characters, read into the model's
      // context), and the output schemas are worth more to an assistant than a name for a UI,
      // which then shows the tool's name.
      return {
        name: tool.name,
        description: tool.description,
        // cast: a contract's input is a z.object, so its JSON Schema has type object, as Tool wants
        inputSchema: toolInputJsonSchema(contract) as Tool["inputSchema"],
        // cast: outputJsonSchema always answers {type: object, properties}, as Tool wants
        outputSchema: outputJsonSchema(contract) as Tool["outputSchema"],
        annotations: tool.annotations,
        // 2025-11-25 clients call these as tasks only where the tool says it may (./tasks.ts).
        ...(tool.followedBy ? { execution: { taskSupport: "optional" as const } } : {}),
      };
    }),
  };
  catalogues.set(operations, made);
  return made;
}
