/** `kinora login` and `kinora logout`: the server and key the other commands use. */

import type { Wallet } from "@kinora/client";
import { type ClientCommand, type ClientContext, COMMON_HELP, stringArg } from "../command.js";
import { readConfigFile, writeConfigFile } from "../config-file.js";
import { normaliseServer } from "../context.js";
import { ApiFailure, CliFailure, UsageError } from "../failures.js";
import { ApiClient } from "../http.js";
import { askSecret } from "../prompts.js";
import { walletLines } from "./wallet.js";

const KEY_PATTERN = /^(pmk|pak)_[0-9A-Za-z]{20,64}$/;

async function login(ctx: ClientContext): Promise<number> {
  const { out, args } = ctx;
  const server = normaliseServer(stringArg(args, "server") ?? ctx.api.server);
  const key = stringArg(args, "key") ?? (await askSecret(out, `Wallet or agent key for ${server}`));
  if (!key) {
    throw new UsageError("No key given: type it when asked, pipe it on stdin, or pass --key.");
  }
  if (!KEY_PATTERN.test(key)) {
    throw new UsageError(
      "That is not a kinora key: wallet keys start with pmk_, agent keys with pak_.",
    );
  }
  let wallet: Wallet;
  try {
    wallet = (await new ApiClient(server, key, ctx.signal).call("getWallet", {})).wallet;
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 401) {
      throw new CliFailure(
        `${server} does not accept this key: ${err.message}`,
        err.exitCode,
        err.fields,
      );
    }
    throw err;
  }
  const stored = await readConfigFile(ctx.configPath);
  await writeConfigFile(ctx.configPath, { ...stored, server, key });
  const kind = key.startsWith("pmk_") ? "wallet" : "agent";
  out.result({ server, key_kind: kind, config_path: ctx.configPath, wallet }, [
    `Signed in to ${server} with ${kind === "wallet" ? "a wallet key" : "an agent key"}; saved in ${ctx.configPath}.`,
    ...walletLines(wallet),
  ]);
  if (ctx.env.key) out.warn("Note: KINORA_KEY is set and takes precedence over the saved key.");
  return 0;
}

async function logout(ctx: ClientContext): Promise<number> {
  const stored = await readConfigFile(ctx.configPath);
  const hadKey = stored.key !== undefined;
  await writeConfigFile(ctx.configPath, { ...stored, key: undefined });
  ctx.out.result(
    { signed_out: hadKey, config_path: ctx.configPath },
    hadKey ? `Signed out: the key was removed from ${ctx.configPath}.` : "No key was saved.",
  );
  if (ctx.env.key) ctx.out.warn("KINORA_KEY is still set in your environment; unset it too.");
  return 0;
}

/** `kinora login`: check a key and save it with the server. */
export const loginCommand: ClientCommand = {
  name: "login",
  summary: "check a wallet or agent key and save it with the server",
  options: { key: { type: "string" } },
  help: `Usage: kinora login [--server URL] [--key KEY]

Checks the key with GET /wallet and saves the server and key in
$XDG_CONFIG_HOME/kinora/config.json (else ~/.config/kinora/config.json), readable
only by you. Without --key it asks (the key is not echoed) or reads one line from
stdin. KINORA_SERVER and KINORA_KEY override what is saved. The key is never
printed back.

Examples:
  kinora login --server https://kinora.example.com
  cat ~/kinora-key.txt | kinora login --server http://127.0.0.1:8080
  kinora login --key pak_…            # an agent key with a spending limit

${COMMON_HELP}`,
  run: login,
};

/** `kinora logout`: forget the saved key. */
export const logoutCommand: ClientCommand = {
  name: "logout",
  summary: "forget the saved key",
  options: {},
  help: `Usage: kinora logout

Removes the saved key from the config file (the server address stays).

Examples:
  kinora logout

${COMMON_HELP}`,
  run: logout,
};
