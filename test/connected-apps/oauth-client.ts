/**
 * An MCP client that signs in the way real assistants do: the official SDK's OAuth flow
 * (401 → discovery → registration or a metadata document → authorize → token), with a
 * loopback callback server catching the code the browser brings back.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

export interface TestOAuthClient {
  provider: OAuthClientProvider;
  /** The authorization URL the SDK asked the browser to open. */
  authorizationUrl(): URL;
  /** Resolves with the query the browser brought to the callback. */
  callback(): Promise<URLSearchParams>;
  tokens(): OAuthTokens | undefined;
  close(): Promise<void>;
}

export async function testOAuthClient(
  opts: { name?: string; clientMetadataUrl?: string } = {},
): Promise<TestOAuthClient> {
  let resolveCallback: (q: URLSearchParams) => void = () => {};
  let callback = new Promise<URLSearchParams>((r) => {
    resolveCallback = r;
  });
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    resolveCallback(url.searchParams);
    res.end("You can close this window.");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const redirectUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  let info: OAuthClientInformationMixed | undefined;
  let tokens: OAuthTokens | undefined;
  let verifier = "";
  let authUrl: URL | undefined;
  const metadata: OAuthClientMetadata = {
    client_name: opts.name ?? "Test Assistant",
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return redirectUrl;
    },
    ...(opts.clientMetadataUrl ? { clientMetadataUrl: opts.clientMetadataUrl } : {}),
    get clientMetadata() {
      return metadata;
    },
    clientInformation: () => info,
    saveClientInformation: (i) => {
      info = i;
    },
    tokens: () => tokens,
    saveTokens: (t) => {
      tokens = t;
    },
    redirectToAuthorization: (url) => {
      authUrl = url;
      callback = new Promise<URLSearchParams>((r) => {
        resolveCallback = r;
      });
    },
    saveCodeVerifier: (v) => {
      verifier = v;
    },
    codeVerifier: () => verifier,
  };
  return {
    provider,
    authorizationUrl() {
      if (!authUrl) throw new Error("the SDK has not asked for authorization");
      return authUrl;
    },
    callback: () => callback,
    tokens: () => tokens,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
