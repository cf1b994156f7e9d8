/** An MCP SDK client connected to a served kinora over real HTTP, with a key in the header or the URL. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export async function connect(
  baseUrl: string,
  key: string,
  opts: { inUrl?: boolean } = {},
): Promise<Client> {
  const url = new URL(`${baseUrl}/mcp`);
  if (opts.inUrl) url.searchParams.set("key", key);
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: opts.inUrl ? {} : { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: "kinora-test", version: "1.0.0" });
  await client.connect(transport);
  // Every assistant lists the tools first; from then on the SDK validates each result's
  // structuredContent against the tool's outputSchema, so the tests do it too.
  await client.listTools();
  return client;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
export type Json = any;

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
): Promise<CallToolResult & { structuredContent: Json }> {
  const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
  return (await client.callTool(params)) as CallToolResult & { structuredContent: Json };
}

/**
 * The error body of a refusal: a tool result with isError whose text content is the REST error
 * body as JSON, and no structuredContent (which the client would check against the success
 * schema).
 */
export function refusal(res: CallToolResult): Json {
  if (res.isError !== true) throw new Error(`not a refusal: ${JSON.stringify(res)}`);
  if (res.structuredContent !== undefined) throw new Error("a refusal carries structuredContent");
  const first = res.content[0];
  if (first?.type !== "text") throw new Error("a refusal without text content");
  return JSON.parse(first.text);
}

/** A raw JSON-RPC POST to /mcp (for transport and auth checks the SDK client hides). */
export async function rpc(
  baseUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
  query = "",
) {
  const res = await fetch(`${baseUrl}/mcp${query}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, body: json };
}

export const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};
