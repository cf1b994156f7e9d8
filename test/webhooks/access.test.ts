/**
 * Who else can reach what webhooks store or return: an agent key of the wallet, or another
 * wallet, tries to read and delete the wallet's endpoints, send them test events, read or rotate
 * the wallet's default secret, read its jobs' deliveries and receive its jobs' events — and gets
 * nothing. The default secret signs a job's deliveries and, rotated, stops at once. A job's
 * webhook fields need a key and a URL, and a loopback receiver only when the operator allows it.
 * (Secrets at rest, in logs and on the wire: secrets-at-rest.test.ts.)
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { webhooksFeature } from "../../src/features/webhooks.js";
import { restoreFeature, restoreKind } from "../../src/kinds/restore/kind.js";
import { createTestApp } from "../app.js";
import { jobBody } from "../restore/helpers.js";
import { mine, owner, settled, setUpAccessApp, t, theirs, video } from "./access-fixture.js";

setUpAccessApp();

describe("an agent key of the wallet", () => {
  it("cannot list, delete or test the wallet's endpoints, nor read or rotate its secret", async () => {
    const a = await owner(mine);
    const as = { key: a.agent.key };
    const refusals = [
      await t.call("GET", "/wallet/webhooks", as),
      await t.call("POST", "/wallet/webhooks", { ...as, body: { url: theirs.url } }),
      await t.call("POST", `/wallet/webhooks/${a.endpointId}/delete`, as),
      await t.call("POST", `/wallet/webhooks/${a.endpointId}/test`, as),
      await t.call("GET", "/wallet/webhook-secret", as),
      await t.call("POST", "/wallet/webhook-secret/rotate", as),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("wallet_key_required");
      expect(JSON.stringify(res.body)).not.toContain(a.endpointId);
    }
    const list = await t.call("GET", "/wallet/webhooks", { key: a.key });
    expect(list.body.endpoints.map((e: { id: string }) => e.id)).toEqual([a.endpointId]);
    expect(list.body.endpoints[0].deliveries).toEqual([]); // no test event went out
    expect((await t.call("GET", "/wallet/webhook-secret", { key: a.key })).body.secret).toBe(
      a.secret,
    );
  });

  it("reads its own job's webhook deliveries, not the owner's endpoints' (nor lists the owner's jobs)", async () => {
    const a = await owner(mine);
    const ownerJob = await t.call("POST", "/cloud/jobs", {
      key: a.key,
      body: jobBody(video, { webhook_url: mine.url }),
    });
    const agentList = await t.call("GET", "/cloud/jobs", { key: a.agent.key });
    expect(agentList.status).toBe(200);
    expect(JSON.stringify(agentList.body)).not.toContain(ownerJob.body.job.id);
    const created = await t.call("POST", "/cloud/jobs", {
      key: a.agent.key,
      body: jobBody(video, { webhook_url: mine.url }),
    });
    expect(created.status).toBe(200);
    const id = created.body.job.id as string;
    await t.call("POST", `/cloud/jobs/${id}/cancel`, { key: a.agent.key });
    await settled(id);
    // The completion went to the job's webhook_url and to the owner's endpoint.
    const sent = await t.deps.db
      .selectFrom("webhook_deliveries")
      .innerJoin("webhook_events", "webhook_events.id", "webhook_deliveries.event_id")
      .select("webhook_deliveries.endpoint_id")
      .where("webhook_events.job_id", "=", id)
      .execute();
    expect(sent.map((d) => d.endpoint_id).sort()).toEqual([a.endpointId, null].sort());
    // The agent key sees its job's own webhook; the owner's endpoint stays the owner's.
    for (const key of [a.agent.key, a.key]) {
      const read = await t.call("GET", `/cloud/jobs/${id}`, { key });
      expect(read.status).toBe(200);
      const hook = read.body.job.webhook;
      expect(hook.url).toBe(mine.url);
      expect(hook.deliveries).toHaveLength(1);
      expect(hook.deliveries[0]).toMatchObject({
        type: "job.completed",
        endpoint_id: null,
        state: "delivered",
      });
      expect(JSON.stringify(read.body)).not.toContain(a.endpointId);
    }
  });
});

describe("another wallet", () => {
  it("cannot see, delete or test the wallet's endpoints, and has a secret of its own", async () => {
    const a = await owner(mine);
    const b = await owner(theirs);
    const asB = { key: b.key };
    const listB = await t.call("GET", "/wallet/webhooks", asB);
    expect(listB.body.endpoints.map((e: { id: string }) => e.id)).toEqual([b.endpointId]);
    for (const action of ["delete", "test"]) {
      const res = await t.call("POST", `/wallet/webhooks/${a.endpointId}/${action}`, asB);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    // B's agent key neither.
    const res = await t.call("POST", `/wallet/webhooks/${a.endpointId}/delete`, {
      key: b.agent.key,
    });
    expect(res.status).toBe(403);
    expect(b.secret).not.toBe(a.secret);
    const rotated = await t.call("POST", "/wallet/webhook-secret/rotate", asB);
    expect(rotated.body.secret).not.toBe(b.secret);
    expect((await t.call("GET", "/wallet/webhook-secret", { key: a.key })).body.secret).toBe(
      a.secret,
    );
    const listA = await t.call("GET", "/wallet/webhooks", { key: a.key });
    expect(listA.body.endpoints).toHaveLength(1);
    expect(listA.body.endpoints[0]).toMatchObject({ id: a.endpointId, status: "enabled" });
    expect(listA.body.endpoints[0].deliveries).toEqual([]);
  });

  it("lists none of the wallet's jobs, sees none of its endpoints' deliveries, and its endpoints get none of their events", async () => {
    const a = await owner(mine);
    const b = await owner(theirs);
    const fromMine = mine.received.length;
    const fromTheirs = theirs.received.length;
    const created = await t.call("POST", "/cloud/jobs", {
      key: a.key,
      body: jobBody(video, { webhook_url: mine.url, webhook_events: ["completed"] }),
    });
    const id = created.body.job.id as string;
    await t.call("POST", `/cloud/jobs/${id}/cancel`, { key: a.key });
    await settled(id);
    for (const key of [b.key, b.agent.key]) {
      const list = await t.call("GET", "/cloud/jobs", { key });
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain(id);
      // Over MCP a job is read with the key that made it.
    }
    // REST reads a restore job by its id alone (the 128-bit id is the capability, docs/api):
    // whoever holds it sees the job's own webhook, never the wallet's endpoints' deliveries.
    for (const key of [b.key, undefined]) {
      const read = await t.call("GET", `/cloud/jobs/${id}`, key ? { key } : {});
      expect(read.status).toBe(200);
      expect(
        read.body.job.webhook.deliveries.map((d: { endpoint_id: unknown }) => d.endpoint_id),
      ).toEqual([null]);
      expect(JSON.stringify(read.body)).not.toContain(a.endpointId);
    }
    // The job's own webhook_url and A's endpoint got the completion, signed for A; B got nothing.
    const got = (await mine.waitFor(fromMine + 2)).slice(fromMine);
    const verified = got.map((r) => {
      try {
        return new Webhook(a.secret).verify(r.body, r.headers);
      } catch {
        return new Webhook(a.endpointSecret).verify(r.body, r.headers);
      }
    });
    expect(verified.map((p) => (p as { data: { id: string } }).data.id)).toEqual([id, id]);
    await new Promise((r) => setTimeout(r, 300));
    expect(theirs.received.length - fromTheirs).toBe(0);
    // Neither signature verifies with B's secrets.
    for (const r of got) {
      expect(() => new Webhook(b.secret).verify(r.body, r.headers)).toThrow();
      expect(() => new Webhook(b.endpointSecret).verify(r.body, r.headers)).toThrow();
    }
  });
});

describe("the wallet's default secret", () => {
  it("signs a job's deliveries; once rotated, the next delivery verifies with the new one only", async () => {
    const a = await owner(mine);
    const from = mine.received.length;
    const first = await t.call("POST", "/cloud/jobs", {
      key: a.key,
      body: jobBody(video, { webhook_url: mine.url }),
    });
    await t.call("POST", `/cloud/jobs/${first.body.job.id}/cancel`, { key: a.key });
    // The job's own URL and the owner's endpoint each get the completion.
    const before = (await mine.waitFor(from + 2)).slice(from);
    const own = before.find((r) => {
      try {
        return new Webhook(a.secret).verify(r.body, r.headers) !== undefined;
      } catch {
        return false;
      }
    });
    expect(own).toBeDefined();
    const rotated = await t.call("POST", "/wallet/webhook-secret/rotate", { key: a.key });
    const next = rotated.body.secret as string;
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(a.secret);
    expect((await t.call("GET", "/wallet/webhook-secret", { key: a.key })).body.secret).toBe(next);
    const second = await t.call("POST", "/cloud/jobs", {
      key: a.key,
      body: jobBody(video, { webhook_url: mine.url }),
    });
    await t.call("POST", `/cloud/jobs/${second.body.job.id}/cancel`, { key: a.key });
    const after = (await mine.waitFor(from + 4)).slice(from + 2);
    const mineNow = after.filter((r) => {
      try {
        new Webhook(a.endpointSecret).verify(r.body, r.headers);
        return false;
      } catch {
        return true;
      }
    });
    expect(mineNow).toHaveLength(1);
    const r = mineNow[0] as (typeof after)[number];
    expect((new Webhook(next).verify(r.body, r.headers) as { data: { id: string } }).data.id).toBe(
      second.body.job.id,
    );
    expect(() => new Webhook(a.secret).verify(r.body, r.headers)).toThrow();
  });
});

describe("a job's webhook fields", () => {
  it("need a key and a URL, and refuse loopback unless the operator allows it", async () => {
    const { key } = await t.newWallet(5000);
    const noUrl = await t.call("POST", "/cloud/jobs", {
      key,
      body: jobBody(video, { webhook_events: ["completed"] }),
    });
    expect(noUrl.status).toBe(400);
    expect(noUrl.body.detail).toMatch(/^webhook_events: needs webhook_url/);
    const noKey = await t.call("POST", "/cloud/jobs", {
      body: jobBody(video, { email: "me@example.com", webhook_url: mine.url }),
    });
    expect(noKey.status).toBe(400);
    expect(noKey.body.detail).toMatch(/^webhook_url: needs a key/);
    const bad = await t.call("POST", "/cloud/jobs", {
      key,
      body: jobBody(video, { webhook_events: ["finished"], webhook_url: mine.url }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/^webhook_events/);
    // The same receiver on a server without WEBHOOK_ALLOW_HTTP_LOOPBACK: refused everywhere.
    const strict = await createTestApp({
      features: [
        restoreFeature({ noExecutor: true }),
        webhooksFeature({ kinds: [restoreKind], noDelivery: true }),
      ],
    });
    try {
      const w = await strict.newWallet(5000);
      const job = await strict.call("POST", "/cloud/jobs", {
        key: w.key,
        body: jobBody(video, { webhook_url: mine.url }),
      });
      expect(job.status).toBe(400);
      expect(job.body.detail).toMatch(/^webhook_url: /);
      const ep = await strict.call("POST", "/wallet/webhooks", {
        key: w.key,
        body: { url: mine.url },
      });
      expect(ep.status).toBe(400);
      expect(ep.body.detail).toMatch(/^url: /);
    } finally {
      await strict.close();
    }
  });
});
