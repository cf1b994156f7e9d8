import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  type RawClientDispatch,
  resultFromTaskOutcome,
} from "@modelcontextprotocol/ext-tasks/client";
import { beforeAll, describe, expect, it } from "vitest";
import { makeImage } from "../clips/helpers.js";
import { useSteppedServer } from "../restore/stepped-server.js";
import type { ServedApp } from "../served.js";
import { INIT, type Json, modern, rpc } from "./helpers.js";

const server = useSteppedServer({ steps: 5, stepMs: 300, workerId: "tasks-w0" });
const { rest, agentKey } = server;
let s: ServedApp;
beforeAll(() => {
  s = server.s;
});

const BYTES = new Uint8Array(4096).fill(9);
const CREATE = {
  duration_sec: 2,
  quality: "faithful",
  filename: "v.mp4",
  content_type: "video/mp4",
  size: BYTES.length,
};

/** A balance-paid restore with its file uploaded, not started. */
async function uploadedRestore(key: string): Promise<string> {
  const created = (await rest("POST", "/cloud/jobs", { key, body: CREATE })).body;
  const put = await fetch(created.upload_url, {
    method: "PUT",
    headers: created.upload_headers,
    body: BYTES,
  });
  expect(put.status).toBe(200);
  return created.job.id;
}

const ERAS = ["2025-11-25", "2026-07-28"] as const;
type Era = (typeof ERAS)[number];

/** The official v2 client in `era`, with an ext-tasks session over it. */
async function taskSession(key: string, era: Era) {
  const url = new URL(`${s.url}/mcp`);
  const headers = { authorization: `Bearer ${key}` };
  const client = new V2Client(
    { name: "kinora-test", version: "1.0.0" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(new V2Transport(url, { requestInit: { headers } }));
  await client.listTools();
  // The SDK client has no 2026-07-28 task codec: ext-tasks asks the host for a raw request path.
  let id = 100;
  const rawDispatch: RawClientDispatch = async (request) => {
    const req = request as Json;
    const h: Record<string, string> = {
      ...headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": req.method,
    };
    const name = req.params?.name ?? req.params?.taskId;
    if (typeof name === "string") h["mcp-name"] = name;
    const res = await fetch(url, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ jsonrpc: "2.0", id: id++, ...req }),
    });
    const body = (await res.json()) as Json;
    return body.error
      ? { kind: "error", error: body.error }
      : { kind: "result", result: body.result };
  };
  const endpointId = `kinora-${era}`;
  const session =
    era === "2026-07-28"
      ? createTaskSessionFromClient(client, {
          endpointId,
          rawDispatch,
          v2RequestFraming: {
            protocolVersion: "2026-07-28",
            clientInfo: { name: "kinora-test", version: "1.0.0" },
            clientCapabilities: {},
          },
        })
      : createTaskSessionFromClient(client, { endpointId });
  return {
    client,
    session,
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}

describe.each(ERAS)("%s", (era) => {
  it("start_restore as a task: the ext-tasks client follows the job to done", async () => {
    const { key } = await agentKey();
    const id = await uploadedRestore(key);
    const { session, close } = await taskSession(key, era);
    const execution = await session.callTool(
      "start_restore",
      { job_id: id },
      { task: { preference: "prefer" } },
    );
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    const result = resultFromTaskOutcome(outcome) as Json;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.job).toMatchObject({ id, status: "done" });
    expect(result.structuredContent.job.download_url).toEqual(expect.any(String));
    await close();
  });
});

const TASKS_CAPS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

/** One raw task-era request of `key` (the SDK clients hide the wire shapes checked here). */
async function send(
  era: Era,
  key: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = TASKS_CAPS,
) {
  const auth = { authorization: `Bearer ${key}` };
  if (era === "2025-11-25") {
    const body = { jsonrpc: "2.0", id: 7, method, params };
    return rpc(s.url, body, { ...auth, "mcp-protocol-version": era });
  }
  const framed = modern(method, params, { capabilities });
  const name: Record<string, string> =
    typeof params.taskId === "string" ? { "mcp-name": params.taskId } : {};
  return rpc(s.url, framed.body, { ...auth, ...framed.headers, ...name });
}

/** A start_restore made a task by `key` in `era`: its id. */
async function startedTask(era: Era, key: string): Promise<{ taskId: string; jobId: string }> {
  const jobId = await uploadedRestore(key);
  const args = { name: "start_restore", arguments: { job_id: jobId } };
  const res = await send(
    era,
    key,
    "tools/call",
    era === "2025-11-25" ? { ...args, task: {} } : args,
  );
  const result = res.body.result;
  const taskId = era === "2025-11-25" ? result.task.taskId : result.taskId;
  expect(taskId, JSON.stringify(res.body)).toEqual(expect.any(String));
  return { taskId, jobId };
}

describe.each(ERAS)("%s, raw", (era) => {
  it("another key can neither read, wait for nor cancel a task, even with its id", async () => {
    const a = await agentKey();
    const b = await agentKey();
    // The same wallet's other agent key is another key too.
    const sibling = (
      await rest("POST", "/wallet/keys", {
        key: a.owner,
        body: { limit_cents: 500, ask_before_spending: false },
      })
    ).body.key as string;
    const { taskId, jobId } = await startedTask(era, a.key);
    const methods =
      era === "2025-11-25"
        ? ["tasks/get", "tasks/result", "tasks/cancel"]
        : ["tasks/get", "tasks/cancel"];
    for (const other of [b.key, sibling]) {
      for (const method of methods) {
        const res = await send(era, other, method, { taskId });
        expect(res.body.error, `${method} ${JSON.stringify(res.body)}`).toMatchObject({
          code: -32602,
          message: "Failed to retrieve task: Task not found",
        });
        expect(JSON.stringify(res.body)).not.toContain(jobId);
      }
    }
    // A forged or altered id is not found either.
    const forged = await send(era, b.key, "tasks/get", { taskId: `${taskId.slice(0, -2)}xx` });
    expect(forged.body.error.code).toBe(-32602);
    // The owner's key still reads its task, which ran untouched.
    const own = await send(era, a.key, "tasks/get", { taskId });
    expect(own.body.result.status).toMatch(/working|completed/);
    const job = (await rest("GET", `/cloud/jobs/${jobId}?wait=20`)).body.job;
    expect(job.status).toBe("done");
  });

  it("a running restore is cancelled by tasks/cancel; a done one is terminal", async () => {
    const { key } = await agentKey();
    // A restore started and cancelled at once: its task ends cancelled (or, when a worker
    // already finished it, the cancel is refused as terminal and the job stays done).
    const first = await startedTask(era, key);
    const cancel = await send(era, key, "tasks/cancel", { taskId: first.taskId });
    const firstJob = (await rest("GET", `/cloud/jobs/${first.jobId}`)).body.job;
    if (cancel.body.error) {
      expect(cancel.body.error.message).toMatch(/terminal status completed/);
      expect(firstJob.status).toBe("done");
    } else {
      expect(firstJob.status).toBe("cancelled");
      const got = await send(era, key, "tasks/get", { taskId: first.taskId });
      expect(got.body.result.status).toBe("cancelled");
    }
    const { taskId } = await startedTask(era, key);
    // Once done, cancelling is refused as the spec says: the task is terminal.
    let done: Json;
    do {
      await new Promise((r) => setTimeout(r, 300));
      done = (await send(era, key, "tasks/get", { taskId })).body.result;
    } while (done.status === "working");
    expect(done.status).toBe("completed");
    const late = await send(era, key, "tasks/cancel", { taskId });
    expect(late.body.error.message).toMatch(/terminal status completed/);
    if (era === "2026-07-28") {
      expect(done.resultType).toBe("complete");
      expect(done.result.structuredContent.job.status).toBe("done");
    } else {
      const result = await send(era, key, "tasks/result", { taskId });
      expect(result.body.result.structuredContent.job.status).toBe("done");
      expect(result.body.result._meta["io.modelcontextprotocol/related-task"]).toEqual({ taskId });
    }
  });
});

describe("2025-11-25 task details", () => {
  it("declares tasks at initialize and taskSupport on the four tools that start jobs", async () => {
    const { key } = await agentKey();
    const init = await rpc(
      s.url,
      { ...INIT, params: { ...INIT.params, protocolVersion: "2025-11-25" } },
      { authorization: `Bearer ${key}` },
    );
    expect(init.body.result.capabilities.tasks).toEqual({
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const list = await send("2025-11-25", key, "tools/list", {});
    const tasked = list.body.result.tools
      .filter((t: Json) => t.execution?.taskSupport === "optional")
      .map((t: Json) => t.name)
      .sort();
    expect(tasked).toEqual(["create_restore", "make_clip", "start_clip", "start_restore"]);
  });

  it("create_restore as a task: the model gets upload_url at once; tasks/cancel cancels and refunds", async () => {
    const { key } = await agentKey();
    const res = await send("2025-11-25", key, "tools/call", {
      name: "create_restore",
      arguments: CREATE,
      task: {},
    });
    const { task, _meta } = res.body.result;
    expect(task).toMatchObject({ status: "working", ttl: expect.any(Number) });
    expect(task.statusMessage).toMatch(/upload/);
    const first = JSON.parse(_meta["io.modelcontextprotocol/model-immediate-response"]);
    expect(first.upload_url).toEqual(expect.any(String));
    const before = (await send("2025-11-25", key, "tools/call", { name: "get_balance" })).body;
    const cancelled = await send("2025-11-25", key, "tasks/cancel", { taskId: task.taskId });
    expect(cancelled.body.result).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    const after = (await send("2025-11-25", key, "tools/call", { name: "get_balance" })).body;
    expect(after.result.structuredContent.wallet.balance_cents).toBe(
      before.result.structuredContent.wallet.balance_cents + first.job.amount_cents,
    );
    const result = await send("2025-11-25", key, "tasks/result", { taskId: task.taskId });
    expect(result.body.error.message).toMatch(/cancelled/);
  });

  it("a refused call asked as a task is a failed task whose result is the refusal", async () => {
    const owner = await s.t.newWallet(50);
    const key = (await s.t.newAgentKey(owner.key, 5000, { askBeforeSpending: false })).key;
    const res = await send("2025-11-25", key, "tools/call", {
      name: "create_restore",
      arguments: CREATE,
      task: {},
    });
    const { task } = res.body.result;
    expect(task.status).toBe("failed");
    const result = (await send("2025-11-25", key, "tasks/result", { taskId: task.taskId })).body
      .result;
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0].text)).toMatchObject({ code: "needs_topup" });
  });
});

describe("2026-07-28 task details", () => {
  it("server/discover declares the extension; tasks/* without it is -32021; a job waiting for its upload is answered as is", async () => {
    const { key } = await agentKey();
    const auth = { authorization: `Bearer ${key}` };
    const discover = modern("server/discover", {}, {});
    const found = await rpc(s.url, discover.body, { ...auth, ...discover.headers });
    expect(found.body.result.capabilities.extensions).toMatchObject(TASKS_CAPS.extensions);
    const { taskId } = await startedTask("2026-07-28", key);
    const bare = await send("2026-07-28", key, "tasks/get", { taskId }, {});
    expect(bare.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: TASKS_CAPS },
    });
    const created = await send("2026-07-28", key, "tools/call", {
      name: "create_restore",
      arguments: CREATE,
    });
    expect(created.body.result.resultType).toBe("complete");
    expect(created.body.result.structuredContent.upload_url).toEqual(expect.any(String));
  });

  it("tasks/* whose Mcp-Name header does not name the body's task is refused as the SDK refuses it (400, -32020)", async () => {
    const { key } = await agentKey();
    const { taskId } = await startedTask("2026-07-28", key);
    const framed = modern("tasks/get", { taskId }, { capabilities: TASKS_CAPS });
    const auth = { authorization: `Bearer ${key}` };
    const names: Record<string, string>[] = [
      { "mcp-name": "someone-elses-task" },
      {},
      { "mcp-name": "=?base64?%%?=" },
    ];
    for (const name of names) {
      const res = await rpc(s.url, framed.body, { ...auth, ...framed.headers, ...name });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.error.code).toBe(-32020);
    }
    const encoded = `=?base64?${Buffer.from(taskId).toString("base64")}?=`;
    const ok = await rpc(s.url, framed.body, { ...auth, ...framed.headers, "mcp-name": encoded });
    expect(ok.body.result.status).toMatch(/working|completed/);
  });
});

describe("2026-07-28 tasks and the owner's agreement", () => {
  it("a key that must ask: the form comes first, the yes spends once, a forged state is refused", async () => {
    const owner = await s.t.newWallet(10_000);
    const key = (await s.t.newAgentKey(owner.key, 5000, { askBeforeSpending: true })).key;
    const caps = { ...TASKS_CAPS, elicitation: { form: {} } };
    const args = { name: "create_restore", arguments: CREATE };
    const asked = (await send("2026-07-28", key, "tools/call", args, caps)).body.result;
    expect(asked.resultType).toBe("input_required");
    expect(asked.inputRequests.confirm.params.message).toMatch(/\$/);
    const forged = await send(
      "2026-07-28",
      key,
      "tools/call",
      { ...args, requestState: `${asked.requestState}x`, inputResponses: {} },
      caps,
    );
    expect(forged.body.error).toMatchObject({ code: -32602 });
    const yes = {
      ...args,
      requestState: asked.requestState,
      inputResponses: { confirm: { action: "accept", content: { agree: true } } },
    };
    const bought = (await send("2026-07-28", key, "tools/call", yes, caps)).body.result;
    // The job waits for its upload: answered as is, not as a task.
    expect(bought.resultType).toBe("complete");
    expect(bought.structuredContent.job.status).toBe("awaiting_upload");
    const again = (await send("2026-07-28", key, "tools/call", yes, caps)).body.result;
    expect(again.structuredContent.job.id).toBe(bought.structuredContent.job.id);
  });
});

describe.each(ERAS)("%s clips", (era) => {
  it("start_clip as a task: working while queued, its image arrived so it cannot be cancelled", async () => {
    const { key } = await agentKey();
    const image = await makeImage(320, 240);
    const created = (
      await rest("POST", "/motion/jobs", {
        key,
        body: {
          prompt: "slow push in, rain",
          content_type: "image/jpeg",
          image_bytes: image.length,
        },
      })
    ).body;
    const put = await fetch(created.upload_url, {
      method: "PUT",
      headers: created.upload_headers,
      body: new Uint8Array(image),
    });
    expect(put.ok).toBe(true);
    const args = { name: "start_clip", arguments: { job_id: created.job.id } };
    const res = await send(
      era,
      key,
      "tools/call",
      era === "2025-11-25" ? { ...args, task: {} } : args,
    );
    const task = era === "2025-11-25" ? res.body.result.task : res.body.result;
    expect(task).toMatchObject({ status: "working", statusMessage: "queued" });
    if (era === "2026-07-28") expect(task.resultType).toBe("task");
    const read = (await send(era, key, "tasks/get", { taskId: task.taskId })).body.result;
    expect(read).toMatchObject({ taskId: task.taskId, status: "working" });
    const cancel = await send(era, key, "tasks/cancel", { taskId: task.taskId });
    expect(cancel.body.error.message).toMatch(/^Cannot cancel task: The clip is queued/);
  });
});
