/**
 * Choosing the server and key a command uses: the --server flag, then KINORA_SERVER /
 * KINORA_KEY, then what `kinora login` stored, then the local default server.
 */

import type { ClientCommand, ClientContext, ParsedArgs } from "./command.js";
import { stringArg } from "./command.js";
import { configFilePath, readConfigFile } from "./config-file.js";
import type { ClientEnv } from "./env.js";
import { UsageError } from "./failures.js";
import { ApiClient } from "./http.js";
import type { Output } from "./output.js";

/** The server a command talks to when nothing names one: a local `kinora serve`. */
const DEFAULT_SERVER = "http://127.0.0.1:8080";

/** Checks a server address and drops trailing slashes. */
export function normaliseServer(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--server must be an http(s) address like https://kinora.example.com.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError("--server must start with http:// or https://.");
  }
  if (url.username || url.password) {
    throw new UsageError("--server must not carry a user name or password; use kinora login.");
  }
  return value.replace(/\/+$/, "");
}

/** The context a command runs with: its server and credential, where to print, the signal. */
export async function buildContext(
  args: ParsedArgs,
  out: Output,
  env: ClientEnv,
  signal: AbortSignal,
  credential: ClientCommand["credential"] = "key",
): Promise<ClientContext> {
  const configPath = configFilePath(env.configHome);
  if (credential === "admin") {
    // The admin token is the operator's: it goes to the server named here, or the local one.
    const server = normaliseServer(stringArg(args, "server") ?? DEFAULT_SERVER);
    const serverSource = stringArg(args, "server") ? "flag" : "default";
    const api = new ApiClient(server, env.adminToken, signal);
    return { args, out, env, configPath, serverSource, signal, api, charge: {} };
  }
  const stored = await readConfigFile(configPath);
  const flag = stringArg(args, "server");
  const [server, serverSource] = flag
    ? ([flag, "flag"] as const)
    : env.server
      ? ([env.server, "env"] as const)
      : stored.server
        ? ([stored.server, "config"] as const)
        : ([DEFAULT_SERVER, "default"] as const);
  // A key saved for one server is never sent to another one named by flag or environment.
  const storedKeyApplies = sameServer(server, stored.server ?? DEFAULT_SERVER);
  const key = env.key ?? (storedKeyApplies ? stored.key : undefined);
  return {
    args,
    out,
    env,
    configPath,
    serverSource,
    signal,
    api: new ApiClient(normaliseServer(server), key, signal),
    charge: {},
  };
}

function sameServer(a: string, b: string): boolean {
  return a.replace(/\/+$/, "") === b.replace(/\/+$/, "");
}
