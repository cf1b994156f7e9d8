/**
 * One MCP server per request (stateless Streamable HTTP): the low-level SDK Server, so that
 * argument validation, error results and `_meta` are ours (see call.ts). Tool listings are
 * computed once per process.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { callTool } from "./call.js";
import type { McpContext } from "./context.js";
import { instructionsFor } from "./instructions.js";
import { inputJsonSchema, outputJsonSchema } from "./schema.js";
import { TOOLS } from "./tools/index.js";

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

let listing: Tool[] | undefined;
function toolListing(): Tool[] {
  listing ??= TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: inputJsonSchema(t.input) as Tool["inputSchema"],
    outputSchema: outputJsonSchema(t.output) as Tool["outputSchema"],
    annotations: { title: t.title, ...t.annotations },
  }));
  return listing;
}

export function createMcpServer(ctx: McpContext): Server {
  const server = new Server(
    { name: "kinora", title: "kinora", version: "1.0.0" },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: instructionsFor(ctx.principal),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolListing() }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const tool = BY_NAME.get(req.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `No tool named ${req.params.name}; tools/list shows the ${TOOLS.length} tools.`,
      );
    }
    return callTool(tool, ctx, req.params.arguments, req.params._meta);
  });
  return server;
}
