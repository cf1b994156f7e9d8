/**
 * Charges/s through the service layer (charge(): Kysely + refusal mapping) vs the identical
 * SQL statements (the lock, then the charge) sent straight to the driver in one transaction,
 * same database, same concurrency, same run.
 */
import type { Database } from "../src/db/database.js";
import { randomId } from "../src/domain/ids.js";
import { silentLogger } from "../src/logger.js";
import { createAgentKey } from "../src/services/agent-keys.js";
import { charge, chargeLock, chargeStatement, credit } from "../src/services/ledger.js";
import { createWallet } from "../src/services/wallets.js";
import { type Figure, throughput } from "./lib.js";

export async function benchCharges(
  database: Database,
  label: string,
  total: number,
): Promise<Figure> {
  const deps = { db: database.db, clock: () => new Date(), ids: randomId, log: silentLogger };
  const spenders: { walletId: string; keyId: string }[] = [];
  for (let i = 0; i < 20; i++) {
    const { wallet } = await createWallet(deps, {});
    await credit(database.db, {
      walletId: wallet.wallet_id,
      amountCents: 10_000_000,
      kind: "adjustment",
      reference: `bench-${wallet.wallet_id}`,
      reason: "bench",
    });
    const { agent_key } = await createAgentKey(deps, wallet.wallet_id, { limitCents: 100_000 });
    spenders.push({ walletId: wallet.wallet_id, keyId: agent_key.id });
  }
  const input = (i: number) => {
    const s = spenders[i % spenders.length] as { walletId: string; keyId: string };
    return {
      walletId: s.walletId,
      agentKeyId: s.keyId,
      amountCents: 1,
      jobId: randomId("rj"),
      reason: "bench",
    };
  };
  const concurrency = 10;
  // The charge's two statements (lock, then decide and write) in one transaction.
  const direct = async (i: number) => {
    const charge = input(i);
    const lock = chargeLock(charge).compile(database.db);
    const write = chargeStatement(charge).compile(database.db);
    await database.rawTransaction([
      { text: lock.sql, params: lock.parameters },
      { text: write.sql, params: write.parameters },
    ]);
  };
  const service = (i: number) => charge(database.db, input(i));
  await throughput(200, concurrency, direct);
  await throughput(200, concurrency, service);
  // Alternate the two so drift in the machine's load affects both alike.
  let directRate = 0;
  let serviceRate = 0;
  for (let round = 0; round < 2; round++) {
    directRate += await throughput(total / 2, concurrency, direct);
    serviceRate += await throughput(total / 2, concurrency, service);
  }
  return {
    name: `charges/s via service layer (${label})`,
    value: serviceRate / 2,
    unit: "/s",
    baselineName: "same SQL direct",
    baseline: directRate / 2,
    better: "higher",
    aim: "≥ 0.7",
  };
}
