/**
 * The price question at a real keyboard (issue 20 item 2): `kinora restore` under a
 * pseudo-terminal against a real server. Stray typing at the question (`ls` + Enter, arrow
 * keys, an empty Enter, a `y` typed before the question showed) never buys anything; only
 * `y`/`yes` does. A key that cannot pay is told what is missing and the command that fixes it
 * before any question — and `kinora keys limit` is that fix for an agent key's limit.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeVideo } from "../restore/helpers.js";
import { balanceOf, type CliServer, scratchDir, startCliServer } from "./harness.js";
import { KEY, type Keystrokes, runCliInPty, stripAnsi } from "./pty.js";

let s: CliServer;
const media = scratchDir();
let video: { path: string; sizeBytes: number };

beforeAll(async () => {
  [s, video] = await Promise.all([startCliServer(), makeVideo(media.dir, 1.5, "tape.mp4")]);
});
afterAll(async () => {
  await s?.close();
  media.remove();
});

/** The price question as the client draws it. */
const QUESTION = /Type y to agree \[y\/N\]: /;

const jobsOf = async (walletId: string) =>
  (
    await s.t.platform.db
      .selectFrom("restore_jobs")
      .select(["id", "status"])
      .where("wallet_id", "=", walletId)
      .execute()
  ).length;

async function restoreAtKeyboard(home: string, typed: Keystrokes[], env = {}) {
  const res = await runCliInPty(
    ["restore", video.path, "-q", "standard", "--out", `${media.dir}/out-${Date.now()}.mp4`],
    { HOME: home, XDG_CONFIG_HOME: home, ...env },
    typed,
  );
  return { code: res.code, screen: stripAnsi(res.output) };
}

describe("the price question on a terminal", () => {
  const strays: [string, Keystrokes[]][] = [
    ["`ls` + Enter", [{ after: QUESTION, keys: `ls${KEY.enter}` }]],
    [
      "arrow keys, vim keys and Enter",
      [{ after: QUESTION, keys: `${KEY.right}${KEY.left}${KEY.up}hjkl${KEY.enter}` }],
    ],
    ["Enter alone", [{ after: QUESTION, keys: KEY.enter }]],
    // Typed while the price was still being fetched: dropped, never an answer.
    [
      "`y` + Enter typed before the question showed",
      [{ keys: `y${KEY.enter}` }, { after: QUESTION, keys: KEY.enter }],
    ],
  ];

  it.each(strays)("%s is No: nothing is created or charged", async (_name, typed) => {
    const wallet = await s.t.newWallet(2000);
    const home = s.signIn(wallet.key);
    const { code, screen } = await restoreAtKeyboard(home, typed);
    expect(screen).toMatch(
      /Restore tape\.mp4 .* at Standard for \$2\.99, paid from your balance\?/,
    );
    expect(screen).toContain("Not restored; nothing was charged.");
    expect(code, screen).toBe(1);
    expect(await balanceOf(s, wallet.walletId)).toBe(2000);
    expect(await jobsOf(wallet.walletId)).toBe(0);
  });

  it("Ctrl-C at the question is an interruption (exit 130); Ctrl-D is No", async () => {
    const wallet = await s.t.newWallet(2000);
    const home = s.signIn(wallet.key);
    const interrupted = await restoreAtKeyboard(home, [{ after: QUESTION, keys: KEY.ctrlC }]);
    expect(interrupted.code, interrupted.screen).toBe(130);
    expect(interrupted.screen).toContain("Cancelled; nothing was charged.");
    const ended = await restoreAtKeyboard(home, [{ after: QUESTION, keys: "\x04" }]);
    expect(ended.code, ended.screen).toBe(1);
    expect(ended.screen).toContain("Not restored; nothing was charged.");
    expect(await balanceOf(s, wallet.walletId)).toBe(2000);
    expect(await jobsOf(wallet.walletId)).toBe(0);
  });

  it("an agent key over its limit is told before any question; the owner raises it with kinora keys limit; then `yes` buys", async () => {
    const wallet = await s.t.newWallet(2000);
    const owner = s.signIn(wallet.key);
    const agent = await s.t.newAgentKey(wallet.key, 100, { askBeforeSpending: false });
    const asAgent = { KINORA_KEY: agent.key };

    const refused = await restoreAtKeyboard(owner, [], asAgent);
    expect(refused.code, refused.screen).toBe(3);
    expect(refused.screen).not.toMatch(QUESTION);
    expect(refused.screen).toContain("Restoring tape.mp4 costs $2.99, which this key cannot pay");
    expect(refused.screen).toContain(
      `This agent key ${agent.id} has $1.00 left of its $1.00 limit.`,
    );
    expect(refused.screen).toContain(`kinora keys limit ${agent.id} 3`);
    expect(await jobsOf(wallet.walletId)).toBe(0);

    // Only the wallet key may change a limit.
    const byAgent = await s.runCli(["keys", "limit", agent.id, "10"], {
      home: owner,
      env: asAgent,
    });
    expect(byAgent.code).toBe(1);
    const raised = await s.runCli(["keys", "limit", agent.id, "10"], { home: owner });
    expect(raised.code, raised.stderr).toBe(0);
    expect(raised.stdout).toContain(
      `${agent.id} now has a $10.00 limit: $0.00 spent, $10.00 left.`,
    );
    const listed = await s.runCli(["keys", "--json"], { home: owner });
    expect(JSON.parse(listed.stdout).keys[0]).toMatchObject({ id: agent.id, limit_cents: 1000 });

    const bought = await restoreAtKeyboard(
      owner,
      [{ after: QUESTION, keys: ` Yes ${KEY.enter}` }],
      asAgent,
    );
    expect(bought.code, bought.screen).toBe(0);
    expect(bought.screen).toContain("Restored video saved to");
    expect(await balanceOf(s, wallet.walletId)).toBe(2000 - 299);
  });

  it("a balance too small says how to top up, before any question", async () => {
    const wallet = await s.t.newWallet(150);
    const { code, screen } = await restoreAtKeyboard(s.signIn(wallet.key), []);
    expect(code, screen).toBe(3);
    expect(screen).not.toMatch(QUESTION);
    expect(screen).toContain("The balance is $1.50, $1.49 short of the price.");
    expect(screen).toContain("Top up first: kinora topup 5");
  });

  it("keys limit: a usage error without an amount, the server's refusal for an unknown key", async () => {
    const wallet = await s.t.newWallet(0);
    const home = s.signIn(wallet.key);
    const usage = await s.runCli(["keys", "limit", "key_nope"], { home });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("Usage: kinora keys limit KEY_ID DOLLARS");
    const unknown = await s.runCli(["keys", "limit", "key_nope", "5", "--json"], { home });
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error).toMatchObject({ status: 404, code: "not_found" });
  });
});
