/**
 * Approvals an agent cannot give itself, over MCP (issue 39 item 1): an assistant whose key must
 * ask is refused with the approval link whatever it sends — max_price_cents, a tool call as a
 * task (both task eras), a forged approval, another key's approval, other arguments — and after
 * the owner's yes the same tool and arguments spend once (a repeat replays; two at once: one
 * charge). An approval asked over REST buys the same purchase over MCP: one purchase, one yes.
 */
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, connect, modern, refusal, rpc } from "../mcp/helpers.js";
import { apiOnlyFeatures, type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
beforeAll(async () => {
  s = await serveTestApp({ features: apiOnlyFeatures() });
});
afterAll(async () => {
  await s?.close();
});

const RESTORE = {
  duration_sec: 2,
  quality: "faithful",
  filename: "tape.mp4",
  content_type: "video/mp4",
  size: 1000,
};

const balanceOf = async (walletKey: string) =>
  (await s.t.call("GET", "/wallet", { key: walletKey })).body.wallet.balance_cents as number;

const approve = (walletKey: string, id: string) =>
  s.t.call("POST", `/approvals/${id}/decision`, { key: walletKey, body: { decision: "approve" } });

async function askingKey() {
  const owner = await s.t.newWallet(5000);
  const agent = await s.t.newAgentKey(owner.key, 3000, { askBeforeSpending: true });
  return { owner, agent };
}

describe("an assistant whose key must ask", () => {
  it("spends only after the owner's yes on kinora, once, and never on what it sends itself", async () => {
    const { owner, agent } = await askingKey();
    const other = await s.t.newAgentKey(owner.key, 3000, { askBeforeSpending: true });
    const client = await connect(s.url, agent.key, { client: "v2 2025-11-25" });
    // No tool decides an approval: an assistant has no way to answer for its owner.
    const { tools } = await client.listTools();
    expect(tools.filter((t: { name: string }) => /approv|decision/.test(t.name))).toEqual([]);
    const asked = refusal(
      await call(client, "create_restore", { ...RESTORE, max_price_cents: 5000 }),
    );
    expect(asked).toMatchObject({ code: "agreement_required" });
    const id = asked.approval_id as string;
    expect(asked.approval_url).toBe(`${s.url}/approve/${id}`);

    // Its own cap, and the approval named in what it sends (an unknown argument): nothing.
    const capped = refusal(
      await call(client, "create_restore", { ...RESTORE, max_price_cents: asked.price_cents }),
    );
    expect(capped.approval_id).toBe(id);
    const named = await call(client, "create_restore", { ...RESTORE, approval_id: id });
    expect(named.isError).toBe(true);
    expect(await balanceOf(owner.key)).toBe(5000);

    expect((await approve(owner.key, id)).status).toBe(200);
    // Another key's call with the same arguments is its own purchase: not approved.
    const theirs = await connect(s.url, other.key);
    const refused = refusal(await call(theirs, "create_restore", RESTORE));
    expect(refused.approval_id).not.toBe(id);
    // Other arguments: not approved either.
    const longer = refusal(
      await call(client, "create_restore", { ...RESTORE, filename: "other.mp4" }),
    );
    expect(longer.approval_id).not.toBe(id);
    expect(await balanceOf(owner.key)).toBe(5000);

    const [a, b] = await Promise.all([
      call(client, "create_restore", RESTORE),
      call(client, "create_restore", RESTORE),
    ]);
    const won = [a, b].filter((r) => !r.isError);
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const r of [a, b].filter((x) => x.isError)) {
      expect(refusal(r).code).toBe("idempotency_in_flight");
    }
    const again = await call(client, "create_restore", RESTORE);
    expect(again.structuredContent.job.id).toBe(won[0].structuredContent.job.id);
    expect(await balanceOf(owner.key)).toBe(5000 - asked.price_cents);
    await client.close();
    await theirs.close();
  });

  it("is asked once for a purchase whichever surface asks: approved after a REST refusal, bought over MCP", async () => {
    const { owner, agent } = await askingKey();
    const body = { ...RESTORE, filename: "both.mp4" };
    const overRest = await s.t.call("POST", "/cloud/jobs", { key: agent.key, body });
    expect(overRest.status).toBe(402);
    const client = await connect(s.url, agent.key, { client: "sdk 1.32" });
    const overMcp = refusal(await call(client, "create_restore", body));
    expect(overMcp.approval_id).toBe(overRest.body.approval_id);
    await approve(owner.key, overRest.body.approval_id);
    const made = await call(client, "create_restore", body);
    expect(made.isError).toBeFalsy();
    const replay = await s.t.call("POST", "/cloud/jobs", { key: agent.key, body });
    expect(replay.body.job.id).toBe(made.structuredContent.job.id);
    expect(await balanceOf(owner.key)).toBe(5000 - overRest.body.price_cents);
    await client.close();
  });

  it.each(["2025-11-25", "2026-07-28"] as const)(
    "as a task (%s): refused with the link, nothing charged; after the owner's yes the same task spends once",
    async (era) => {
      const { owner, agent } = await askingKey();
      const args = { name: "create_restore", arguments: { ...RESTORE, filename: `${era}.mp4` } };
      const auth = { authorization: `Bearer ${agent.key}` };
      const caps = { extensions: { "io.modelcontextprotocol/tasks": {} } };
      /**
       * The task call's answer; 2025 answers a task at once: its result (a refusal ends it;
       * a restore's task waits for the upload, so then its state).
       */
      const asTask = async (id: number, method = "tasks/result") => {
        if (era === "2026-07-28") {
          const framed = modern("tools/call", args, { capabilities: caps, id });
          return JSON.stringify(
            (await rpc(s.url, framed.body, { ...auth, ...framed.headers })).body,
          );
        }
        const headers = { ...auth, "mcp-protocol-version": era };
        const params = { ...args, task: {} };
        const res = await rpc(s.url, { jsonrpc: "2.0", id, method: "tools/call", params }, headers);
        const taskId = res.body.result?.task?.taskId;
        expect(taskId).toEqual(expect.any(String));
        const body = { jsonrpc: "2.0", id: id + 1, method, params: { taskId } };
        return JSON.stringify((await rpc(s.url, body, headers)).body);
      };
      const text = await asTask(7);
      expect(text).toContain("agreement_required");
      const id = /\/approve\/(apr_[0-9A-Za-z]+)/.exec(text)?.[1] as string;
      expect(id).toBeDefined();
      expect(await balanceOf(owner.key)).toBe(5000);
      const price = (await s.t.call("GET", `/approvals/${id}`, { key: agent.key })).body.approval
        .price_cents as number;
      expect((await approve(owner.key, id)).status).toBe(200);
      const first = await asTask(9, "tasks/get");
      expect(first).not.toContain("agreement_required");
      const again = await asTask(11, "tasks/get");
      expect(again).not.toContain("agreement_required");
      expect(await balanceOf(owner.key)).toBe(5000 - price);
    },
  );

  it("a client with URL elicitation shows the owner kinora's page; its own accept buys nothing, the owner's approval buys once", async () => {
    const { owner, agent } = await askingKey();
    const shown: { url: string; message: string }[] = [];
    let approveOnPage = false;
    const client = new V2Client(
      { name: "kinora-test", version: "1.0.0" },
      {
        capabilities: { elicitation: { url: {} } },
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      },
    );
    client.setRequestHandler("elicitation/create", async (req) => {
      const params = req.params as { url: string; message: string; mode?: string };
      shown.push({ url: params.url, message: params.message });
      if (approveOnPage) {
        // The person taps Approve on the page the client opened.
        const id = params.url.split("/approve/")[1] as string;
        expect((await approve(owner.key, id)).status).toBe(200);
      }
      return { action: "accept" };
    });
    await client.connect(
      new V2Transport(new URL(`${s.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agent.key}` } },
      }),
    );
    await client.listTools();
    const body = { ...RESTORE, filename: "url-mode.mp4" };
    // Accepted without the owner's approval: nothing bought, the link in the refusal.
    const refused = refusal(await call(client, "create_restore", body));
    expect(refused.code).toBe("agreement_required");
    expect(shown[0]?.url).toBe(refused.approval_url);
    expect(shown[0]?.message).toContain(refused.question);
    expect(await balanceOf(owner.key)).toBe(5000);

    approveOnPage = true;
    const other = { ...RESTORE, filename: "url-mode-2.mp4" };
    const made = await call(client, "create_restore", other);
    expect(made.isError).toBeFalsy();
    const again = await call(client, "create_restore", other);
    expect(again.structuredContent.job.id).toBe(made.structuredContent.job.id);
    expect(await balanceOf(owner.key)).toBe(5000 - refused.price_cents);
    await client.close();
  });
});
