/**
 * One MCP server per request (stateless Streamable HTTP): the low-level SDK Server, so that
 * argument validation, error results and `_meta` are ours (see call.ts). Tool listings, and
 * the SDK's JSON Schema validator, are made once per process.
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

/**
 * Left to itself, every Server builds an Ajv instance with all its formats: a third of an MCP
 * request's CPU when a server lives for one request. It only ever compiles schemas (for
 * elicitation, which these tools do not use), never holds a caller's data, so one serves all.
 */
let validator: AjvJsonSchemaValidator | undefined;

export function createMcpServer(ctx: McpContext): Server {
  validator ??= new AjvJsonSchemaValidator();
  const server = new Server(
    { name: "kinora", title: "kinora", version: "1.0.0" },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: instructionsFor(ctx.principal),
      jsonSchemaValidator: validator,
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
