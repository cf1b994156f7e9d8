/**
 * The CLI's account side as a subprocess against a real server on 127.0.0.1: login and the
 * config file, wallet, keys, a card top-up paid on the test checkout page, logout, and the
 * exit codes of usage and server errors.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceOf, type CliServer, payTestCheckout, ROOT, startCliServer } from "./harness.js";

let s: CliServer;
beforeAll(async () => {
  s = await startCliServer();
});
afterAll(async () => {
  await s?.close();
});

/** A config home signed in to a new funded wallet (the file login writes; login has its own test). */
async function signedIn(cents = 2000) {
  const wallet = await s.t.newWallet(cents);
  return { home: s.signIn(wallet.key), ...wallet };
}

describe("kinora login / wallet / logout", () => {
  it("checks the key, stores server and key owner-only, and never prints the key", async () => {
    const wallet = await s.t.newWallet(1234);
    const home = s.newHome();
    const res = await s.runCli(["login", "--server", s.url], { home, input: `${wallet.key}\n` });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Signed in to ${s.url} with a wallet key`);
    expect(res.stdout).toContain("$12.34");
    expect(res.stdout + res.stderr).not.toContain(wallet.key);

    const file = path.join(home, "kinora", "config.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ server: s.url, key: wallet.key });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);

    const shown = await s.runCli(["wallet", "--json"], { home });
    expect(shown.code, shown.stderr).toBe(0);
    const doc = JSON.parse(shown.stdout);
    expect(doc.wallet).toMatchObject({ wallet_id: wallet.walletId, balance_cents: 1234 });
    expect(shown.stdout).not.toContain(wallet.key);

    const human = await s.runCli(["wallet"], { home });
    expect(human.stdout).toMatch(/Balance\s+\$12\.34/);

    const out = await s.runCli(["logout"], { home });
    expect(out.code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ server: s.url });
    const after = await s.runCli(["wallet"], { home });
    expect(after.code).toBe(2);
    expect(after.stderr).toContain("kinora login");
  });

  it("refuses a key the server does not know (exit 1) and saves nothing", async () => {
    const home = s.newHome();
    const res = await s.runCli(["login", "--server", s.url, "--key", `pmk_${"0".repeat(43)}`], {
      home,
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/does not accept this key/);
    expect(() => statSync(path.join(home, "kinora", "config.json"))).toThrow();
  });

  it("lets KINORA_SERVER / KINORA_KEY override the saved sign-in and shows an agent key's allowance", async () => {
    const { home, key } = await signedIn(5000);
    const agent = await s.t.newAgentKey(key, 700);
    const res = await s.runCli(["wallet", "--json"], { home, env: { KINORA_KEY: agent.key } });
    expect(res.code, res.stderr).toBe(0);
    const w = JSON.parse(res.stdout).wallet;
    expect(w.agent_key).toMatchObject({ id: agent.id, limit_cents: 700, remaining_cents: 700 });
    expect(w.spendable_cents).toBe(700);
    expect(w.email).toBeUndefined();

    // A server named in the environment never gets the key saved for another one.
    const elsewhere = await s.runCli(["wallet"], {
      home,
      env: { KINORA_SERVER: "http://127.0.0.1:9" },
    });
    expect(elsewhere.code).toBe(2);
    const down = await s.runCli(["wallet"], {
      home,
      env: { KINORA_SERVER: "http://127.0.0.1:9", KINORA_KEY: key },
    });
    expect(down.code).toBe(4);
    expect(down.stderr).toMatch(/Could not reach http:\/\/127\.0\.0\.1:9/);
  });
});

describe("kinora keys", () => {
  it("creates a key (secret shown once), lists it, revokes it; a revoked key is refused", async () => {
    const { home } = await signedIn();
    const made = await s.runCli(["keys", "create", "--limit", "5", "--label", "my bot", "--json"], {
      home,
    });
    expect(made.code, made.stderr).toBe(0);
    const created = JSON.parse(made.stdout);
    expect(created.key).toMatch(/^pak_/);
    expect(created.agent_key).toMatchObject({ label: "my bot", limit_cents: 500 });

    const listed = await s.runCli(["keys"], { home });
    expect(listed.stdout).toMatch(new RegExp(`${created.agent_key.id}\\s+my bot\\s+\\$5\\.00`));
    expect(listed.stdout).not.toContain(created.key);

    const revoked = await s.runCli(["keys", "revoke", created.agent_key.id], { home });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(
      `Revoked ${created.agent_key.id} "my bot": it stops working at once and can spend nothing more`,
    );
    // Its unspent limit is not money it can still spend: the list says none is left.
    const after = await s.runCli(["keys"], { home });
    expect(after.stdout).toMatch(
      new RegExp(
        `${created.agent_key.id}\\s+my bot\\s+\\$5\\.00\\s+\\$0\\.00\\s+none\\s+.*revoked: can spend nothing`,
      ),
    );
    expect(after.stdout).not.toMatch(/\$5\.00\s+\$0\.00\s+\$5\.00/);
    const refused = await s.runCli(["wallet", "--json"], {
      home,
      env: { KINORA_KEY: created.key },
    });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ status: 401, exit_code: 1 });
  });
});

describe("kinora topup", () => {
  it("prints the checkout link, waits for the payment and says it was credited", async () => {
    const { home, walletId } = await signedIn(0);
    const cli = s.spawnCli(["topup", "20"], { home });
    const [, link] = await cli.waitFor(/Pay \$20\.00 here: (\S+)/);
    await payTestCheckout(link as string);
    const res = await cli.done;
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain("Payment received: $20.00 was credited.");
    expect(res.stdout).toMatch(/Balance\s+\$20\.00/);
    expect(await balanceOf(s, walletId)).toBe(2000);
  });

  it("--open hands the link to the system's opener; --no-wait returns at once; a bad amount is refused", async () => {
    const { home } = await signedIn(0);
    // A stand-in xdg-open that records what it was asked to open.
    const bin = path.join(home, "bin");
    const opened = path.join(home, "opened.txt");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "xdg-open"), `#!/bin/sh\necho "$1" > '${opened}'\n`, {
      mode: 0o755,
    });
    const env = { PATH: `${bin}:${process.env.PATH}` };
    const [res, low] = await Promise.all([
      s.runCli(["topup", "7.50", "--open", "--no-wait", "--json"], { home, env }),
      s.runCli(["topup", "2", "--no-wait"], { home }),
    ]);
    expect(res.code, res.stderr).toBe(0);
    const doc = JSON.parse(res.stdout);
    expect(doc).toMatchObject({
      credited: false,
      checkout: { amount_cents: 750, display: "$7.50" },
    });
    await expect
      .poll(() => existsSync(opened) && readFileSync(opened, "utf8").trim())
      .toBe(doc.checkout.checkout_url);
    expect(low.code).toBe(1);
    expect(low.stderr).toMatch(/\$2\.00 was refused: amount_cents/);
  });
});

describe("usage errors", () => {
  it("exit 2 for unknown options and bad arguments; --help has examples", async () => {
    const { home, walletId } = await signedIn();
    const [unknown, badId, notImage, help] = await Promise.all([
      s.runCli(["wallet", "--bogus"], { home }),
      s.runCli(["get", "job_1"], { home }),
      s.runCli(["clip", path.join(ROOT, "package.json"), "a calm sea"], { home }),
      s.runCli(["restore", "--help"], { home }),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown option '--bogus'\. See kinora wallet --help/);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain("restores start with rj_, clips with clip_");
    expect(notImage.code).toBe(2);
    expect(notImage.stderr).toContain("is not a JPEG, PNG or WebP image");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Examples:");
    expect(await balanceOf(s, walletId)).toBe(2000);
  });
});
