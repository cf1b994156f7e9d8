/**
 * One MCP server per request (stateless Streamable HTTP): the low-level SDK Server, so that
 * argument validation, error results and `_meta` are ours (see call.ts). The tool listing is
 * derived from the operations once per process, as is the SDK's JSON Schema validator.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Operation } from "../api/operation.js";
import { callTool } from "./call.js";
import type { McpContext } from "./context.js";
import { instructionsFor } from "./instructions.js";
import { inputJsonSchema, outputJsonSchema } from "./schema.js";

interface Catalogue {
  tools: Tool[];
  byName: Map<string, Operation>;
}

const catalogues = new WeakMap<readonly Operation[], Catalogue>();

/** The tools of a list of operations (those with an MCP binding), made once per list. */
function catalogue(operations: readonly Operation[]): Catalogue {
  let found = catalogues.get(operations);
  if (found) return found;
  const withTools = operations.filter((op) => op.contract.mcp);
  found = {
    byName: new Map(withTools.map((op) => [op.contract.mcp?.name as string, op])),
    tools: withTools.map(({ contract }) => {
      const tool = contract.mcp as NonNullable<typeof contract.mcp>;
      return {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: inputJsonSchema(contract) as Tool["inputSchema"],
        outputSchema: outputJsonSchema(contract) as Tool["outputSchema"],
        annotations: { title: tool.title, ...tool.annotations },
      };
    }),
  };
  catalogues.set(operations, found);
  return found;
}

/**
 * Left to itself, every Server builds an Ajv instance with all its formats: a third of an MCP
 * request's CPU when a server lives for one request. It only ever compiles schemas (for
 * elicitation, which these tools do not use), never holds a caller's data, so one serves all.
 */
let validator: AjvJsonSchemaValidator | undefined;

export function createMcpServer(ctx: McpContext): Server {
  validator ??= new AjvJsonSchemaValidator();
  const { tools, byName } = catalogue(ctx.operations);
  const server = new Server(
    { name: "kinora", title: "kinora", version: "1.0.0" },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: instructionsFor(ctx.principal),
      jsonSchemaValidator: validator,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const op = byName.get(req.params.name);
    if (!op) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `No tool named ${req.params.name}; tools/list shows the ${tools.length} tools.`,
      );
    }
    return callTool(op, ctx, req.params.arguments, req.params._meta);
  });
  return server;
}
