/**
 * MCP clients connected to a served kinora over real HTTP, with a key in the header or the URL:
 * the official SDK v2 client speaking 2026-07-28 (per-request envelope) or the 2025 era
 * (`initialize`), and the 1.32 client (2025 only) — the clients assistants are built on.
 */
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** Which client: the v2 SDK in each era, or the 1.32 SDK. */
export const CLIENTS = ["v2 2026-07-28", "v2 2025-11-25", "sdk 1.32"] as const;
export type ClientKind = (typeof CLIENTS)[number];

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
export type Json = any;

/** What the tests use of either SDK's client. */
export interface McpClient {
  kind: ClientKind;
  /** The revision the client negotiated. */
  protocolVersion(): string | undefined;
  listTools(): Promise<{ tools: Json[] }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    options?: { onprogress?: (p: Json) => void },
  ): Promise<Json>;
  getInstructions(): string | undefined;
  close(): Promise<void>;
}

function v2Client(url: URL, requestInit: RequestInit, era: "2026" | "2025"): McpClient {
  const client = new V2Client(
    { name: "kinora-test", version: "1.0.0" },
    era === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  return {
    kind: era === "2026" ? "v2 2026-07-28" : "v2 2025-11-25",
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools(),
    callTool: (params, options) => client.callTool(params, options),
    getInstructions: () => client.getInstructions(),
    close: () => client.close(),
    connect: () => client.connect(new V2Transport(url, { requestInit })),
  } as McpClient & { connect(): Promise<void> };
}

function v1Client(url: URL, requestInit: RequestInit): McpClient {
  const client = new V1Client({ name: "kinora-test", version: "1.0.0" });
  const transport = new V1Transport(url, { requestInit });
  return {
    kind: "sdk 1.32",
    protocolVersion: () => transport.protocolVersion,
    listTools: () => client.listTools(),
    callTool: (params, options) => client.callTool(params, undefined, options),
    getInstructions: () => client.getInstructions(),
    close: () => client.close(),
    connect: () => client.connect(transport),
  } as McpClient & { connect(): Promise<void> };
}

export async function connect(
  baseUrl: string,
  key: string,
  opts: { inUrl?: boolean; client?: ClientKind } = {},
): Promise<McpClient> {
  const url = new URL(`${baseUrl}/mcp`);
  if (opts.inUrl) url.searchParams.set("key", key);
  const requestInit: RequestInit = opts.inUrl
    ? {}
    : { headers: { authorization: `Bearer ${key}` } };
  const kind = opts.client ?? "v2 2026-07-28";
  const client = (
    kind === "sdk 1.32"
      ? v1Client(url, requestInit)
      : v2Client(url, requestInit, kind === "v2 2026-07-28" ? "2026" : "2025")
  ) as McpClient & { connect(): Promise<void> };
  await client.connect();
  // Every assistant lists the tools first; from then on the SDK validates each result's
  // structuredContent against the tool's outputSchema, so the tests do it too.
  await client.listTools();
  return client;
}

/** Anything with the SDK's callTool (either SDK's Client, or an McpClient). */
type CallsTools = {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Json>;
};

export async function call(
  client: CallsTools,
  name: string,
  args: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
): Promise<Json> {
  const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
  return client.callTool(params);
}

/**
 * The error body of a refusal: a tool result with isError whose text content is the REST error
 * body as JSON, and no structuredContent (which the client would check against the success
 * schema).
 */
export function refusal(res: Json): Json {
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
  return { status: res.status, headers: res.headers, body: json, text };
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

/** The 2026-07-28 envelope and headers a raw modern request carries. */
export function modern(
  method: string,
  params: Record<string, unknown> = {},
  opts: { version?: string; capabilities?: Record<string, unknown>; id?: number } = {},
) {
  const version = opts.version ?? "2026-07-28";
  const body = {
    jsonrpc: "2.0",
    id: opts.id ?? 1,
    method,
    params: {
      ...params,
      _meta: {
        ...((params._meta as object) ?? {}),
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": opts.capabilities ?? {},
      },
    },
  };
  const headers: Record<string, string> = { "mcp-protocol-version": version, "mcp-method": method };
  if (typeof params.name === "string") headers["mcp-name"] = params.name;
  return { body, headers };
}
