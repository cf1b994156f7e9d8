/** `kinora keys [create|limit|revoke]`: agent keys, sub-keys with a spending limit. */
import { type ClientCommand, type ClientContext, COMMON_HELP, stringArg } from "../command.js";
import { UsageError } from "../failures.js";
import { dollars, formatAge, parseDollars, table } from "../format.js";

async function listKeys(ctx: ClientContext): Promise<number> {
  ctx.api.requireKey();
  const { keys } = await ctx.api.call("listAgentKeys", {});
  // A revoked key can spend nothing, whatever its limit left unspent: LEFT says so.
  const rows = keys.map((k) => [
    k.id,
    k.label || "-",
    dollars(k.limit_cents),
    dollars(k.spent_cents),
    k.revoked ? "none" : dollars(k.remaining_cents),
    k.last_used_at ? formatAge(k.last_used_at) : "never",
    k.revoked
      ? "revoked: can spend nothing"
      : k.kind === "connected_app"
        ? "connected app"
        : "active",
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
  const res = await ctx.api.call("createAgentKey", {
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
  const res = await ctx.api.call("revokeAgentKey", { id });
  const k = res.agent_key;
  ctx.out.result(
    res,
    `Revoked ${k.id}${k.label ? ` "${k.label}"` : ""}: it stops working at once and can spend nothing more; the balance is unchanged.`,
  );
  return 0;
}

const LIMIT_USAGE = "Usage: kinora keys limit KEY_ID DOLLARS  (see kinora keys)";

/** The owner sets a key's total limit (never below what it already spent). */
async function limitKey(ctx: ClientContext, id: string | undefined, amount: string | undefined) {
  ctx.api.requireKey();
  if (!id || !amount) throw new UsageError(LIMIT_USAGE);
  const res = await ctx.api.call("changeAgentKeyLimit", {
    id,
    limit_cents: parseDollars(amount, "DOLLARS"),
  });
  const k = res.agent_key;
  ctx.out.result(
    res,
    `${k.id}${k.label ? ` "${k.label}"` : ""} now has a ${dollars(k.limit_cents)} limit: ${dollars(k.spent_cents)} spent, ${dollars(k.remaining_cents)} left.`,
  );
  return 0;
}

async function keys(ctx: ClientContext): Promise<number> {
  const [sub, id, amount, extra] = ctx.args.positionals;
  const allowed = sub === "limit" ? 3 : sub === "revoke" ? 2 : 1;
  if (extra || ctx.args.positionals.length > allowed)
    throw new UsageError("Too many arguments; see kinora keys --help.");
  switch (sub) {
    case undefined:
    case "list":
      return listKeys(ctx);
    case "create":
      return createKey(ctx);
    case "limit":
      return limitKey(ctx, id, amount);
    case "revoke":
      return revokeKey(ctx, id);
    default:
      throw new UsageError(`Unknown keys command "${sub}": use list, create, limit or revoke.`);
  }
}

/** `kinora keys`: list, create, re-limit and revoke agent keys. */
export const keysCommand: ClientCommand = {
  name: "keys",
  summary: "list, create (keys create --limit 5), limit and revoke agent keys",
  options: { limit: { type: "string" }, label: { type: "string" } },
  help: `Usage: kinora keys
       kinora keys create --limit DOLLARS [--label NAME]
       kinora keys limit KEY_ID DOLLARS
       kinora keys revoke KEY_ID

Agent keys (pak_…) spend from this wallet up to their limit — for assistants and
scripts. Listing, creating, changing a limit and revoking need the wallet key
(pmk_…). A new key's secret is printed once; it cannot be shown again.

keys limit sets a key's (or a connected app's) total limit: what it may spend in
all, never below what it already spent. The change is written to the ledger.

Examples:
  kinora keys
  kinora keys create --limit 5 --label "my assistant"
  kinora keys limit key_3mJr7AoUXx7Wqd2vBZLWmU 20
  kinora keys revoke key_3mJr7AoUXx7Wqd2vBZLWmU

${COMMON_HELP}`,
  run: keys,
};
