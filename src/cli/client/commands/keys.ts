/** `kinora keys [create|revoke]`: agent keys, sub-keys with a spending limit. */
import { createAgentKey, listAgentKeys, revokeAgentKey } from "../../../api/contracts/wallet.js";
import { type ClientCommand, type ClientContext, COMMON_HELP, stringArg } from "../command.js";
import { UsageError } from "../failures.js";
import { dollars, formatAge, parseDollars, table } from "../format.js";
import { callOperation } from "../operations.js";

async function listKeys(ctx: ClientContext): Promise<number> {
  ctx.api.requireKey();
  const { keys } = await callOperation(ctx.api, listAgentKeys, {});
  const rows = keys.map((k) => [
    k.id,
    k.label || "-",
    dollars(k.limit_cents),
    dollars(k.spent_cents),
    dollars(k.remaining_cents),
    k.last_used_at ? formatAge(k.last_used_at) : "never",
    k.revoked ? "revoked" : k.kind === "connected_app" ? "connected app" : "active",
  ]);
  ctx.out.result(
    { keys },
    keys.length === 0
      ? "No agent keys yet: kinora keys create --limit 5 --label NAME"
      : table(["ID", "LABEL", "LIMIT", "SPENT", "LEFT", "LAST USED", "STATUS"], rows),
  );
  return 0;
}

async function createKey(ctx: ClientContext): Promise<number> {
  ctx.api.requireKey();
  const limit = stringArg(ctx.args, "limit");
  if (!limit)
    throw new UsageError("--limit is required: the most the key may ever spend, in dollars.");
  const label = stringArg(ctx.args, "label");
  const res = await callOperation(ctx.api, createAgentKey, {
    limit_cents: parseDollars(limit, "--limit"),
    ...(label === undefined ? {} : { label }),
  });
  const k = res.agent_key;
  ctx.out.result(res, [
    `Created agent key ${k.id}${k.label ? ` "${k.label}"` : ""} with a ${dollars(k.limit_cents)} limit.`,
    "Its secret, shown this once — store it now (e.g. KINORA_KEY for a script):",
    res.key,
  ]);
  return 0;
}

async function revokeKey(ctx: ClientContext, id: string | undefined): Promise<number> {
  ctx.api.requireKey();
  if (!id) throw new UsageError("Usage: kinora keys revoke KEY_ID  (see kinora keys)");
  const res = await callOperation(ctx.api, revokeAgentKey, { key_id: id });
  ctx.out.result(res, `Revoked ${res.agent_key.id}: it stops working at once.`);
  return 0;
}

async function keys(ctx: ClientContext): Promise<number> {
  const [sub, id, extra] = ctx.args.positionals;
  if (extra || (sub !== "revoke" && id))
    throw new UsageError("Too many arguments; see kinora keys --help.");
  switch (sub) {
    case undefined:
    case "list":
      return listKeys(ctx);
    case "create":
      return createKey(ctx);
    case "revoke":
      return revokeKey(ctx, id);
    default:
      throw new UsageError(`Unknown keys command "${sub}": use list, create or revoke.`);
  }
}

/** `kinora keys`: list, create and revoke agent keys. */
export const keysCommand: ClientCommand = {
  name: "keys",
  summary: "list, create (keys create --limit 5) and revoke agent keys",
  options: { limit: { type: "string" }, label: { type: "string" } },
  help: `Usage: kinora keys
       kinora keys create --limit DOLLARS [--label NAME]
       kinora keys revoke KEY_ID

Agent keys (pak_…) spend from this wallet up to their limit — for assistants and
scripts. Listing, creating and revoking need the wallet key (pmk_…). A new key's
secret is printed once; it cannot be shown again.

Examples:
  kinora keys
  kinora keys create --limit 5 --label "my assistant"
  kinora keys revoke key_3mJr7AoUXx7Wqd2vBZLWmU

${COMMON_HELP}`,
  run: keys,
};
