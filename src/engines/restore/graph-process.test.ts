import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { spareFfmpegs } from "../../../test/restore/processes.js";
import { createGraphRunner, type GraphRunner } from "./graph-process.js";

/** `frames` frames of w×h grey, each its own shade, as the graph's one output. */
const greyFrames = (w: number, h: number, frames: number) =>
  `testsrc2=s=${w}x${h}:r=25:d=${frames / 25},format=gray[out0]`;

async function collect(runner: GraphRunner, graph: string, signal?: AbortSignal) {
  const chunks: Buffer[] = [];
  const run = await runner.run(graph, { signal, onFrames: (c) => chunks.push(c) });
  return { ...run, bytes: Buffer.concat(chunks) };
}

const runners: GraphRunner[] = [];
const runner = (spare: boolean | number) => {
  const r = createGraphRunner({ spares: spare === true ? 1 : Number(spare) });
  runners.push(r);
  return r;
};
afterEach(() => {
  for (const r of runners.splice(0)) r.close();
});

describe("graph runner", () => {
  it("runs a graph read from stdin and streams its output's raw frames", async () => {
    const run = await collect(runner(false), greyFrames(32, 16, 5));
    expect(run.code).toBe(0);
    expect(run.bytes.length).toBe(32 * 16 * 5);
    expect(run.warm).toBe(false);
  });

  it("starts a spare when told, which the next run takes warm, with the same frames", async () => {
    const r = runner(true);
    const cold = await collect(r, greyFrames(32, 16, 3));
    r.restock();
    const warm = await collect(r, greyFrames(32, 16, 3));
    expect([cold.warm, warm.warm]).toEqual([false, true]);
    expect(warm.bytes.equals(cold.bytes)).toBe(true);
    // Taken is gone: until the next restock, runs start cold.
    expect((await collect(r, greyFrames(16, 16, 2))).warm).toBe(false);
    r.restock();
    r.restock();
    const again = await collect(r, greyFrames(16, 16, 2));
    expect(again).toMatchObject({ code: 0, warm: true });
    expect(again.bytes.length).toBe(16 * 16 * 2);
  });

  it("keeps no spare when made without one", async () => {
    const r = runner(false);
    r.restock();
    expect((await collect(r, greyFrames(8, 8, 1))).warm).toBe(false);
  });

  it("gives each of two runs at once its own process and its own frames", async () => {
    const r = runner(true);
    r.restock();
    const [a, b] = await Promise.all([
      collect(r, greyFrames(32, 16, 4)),
      collect(r, greyFrames(16, 8, 6)),
    ]);
    expect([a.bytes.length, b.bytes.length]).toEqual([32 * 16 * 4, 16 * 8 * 6]);
    expect([a.warm, b.warm].sort()).toEqual([false, true]);
  });

  it("keeps as many spares as it was made with: runs at once each take one warm", async () => {
    const r = runner(3);
    r.restock();
    expect(await spareFfmpegs()).toHaveLength(3);
    // A restock with every spare waiting starts none.
    r.restock();
    expect(await spareFfmpegs()).toHaveLength(3);
    const runs = await Promise.all([2, 3, 4].map((n) => collect(r, greyFrames(8, 8, n))));
    expect(runs.map((run) => [run.warm, run.bytes.length])).toEqual([
      [true, 128],
      [true, 192],
      [true, 256],
    ]);
    // Taken are gone; the fourth run at once would have started cold.
    expect(await spareFfmpegs()).toEqual([]);
    r.restock();
    expect(await spareFfmpegs()).toHaveLength(3);
  });

  it("streams a sound graph's samples as they are, through the same spare", async () => {
    const r = runner(true);
    r.restock();
    const tone = "sine=f=50:sample_rate=2000:d=0.5,aformat=sample_fmts=flt:channel_layouts=mono";
    const run = await collect(r, `${tone}[out0]`);
    expect(run).toMatchObject({ code: 0, warm: true });
    const samples = new Float32Array(new Uint8Array(run.bytes).buffer);
    expect(samples).toHaveLength(1000);
    // A 50 Hz sine at 2 kHz: a quarter period (10 samples) in, it peaks.
    expect(samples[0]).toBeCloseTo(0, 5);
    expect(samples[10]).toBeCloseTo(0.125, 2);
  });

  it("reports a graph ffmpeg refuses by its exit and log, and the next run still works", async () => {
    const r = runner(true);
    r.restock();
    const bad = await collect(r, "nosuchfilter[out0]");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/No such filter/);
    expect((await collect(r, greyFrames(8, 8, 1))).code).toBe(0);
  });

  it("kills the process on abort and rejects with the reason; the runner goes on", async () => {
    const r = runner(true);
    r.restock();
    const stop = new AbortController();
    const endless = "testsrc2=s=64x64:r=25,format=gray,realtime[out0]";
    const running = collect(r, endless, stop.signal);
    setTimeout(() => stop.abort(new Error("cancelled by test")), 200);
    await expect(running).rejects.toThrow("cancelled by test");
    r.restock();
    const after = await collect(r, greyFrames(8, 8, 2));
    expect(after).toMatchObject({ code: 0, warm: true });
  });

  it("runs the graph in a fresh process when its spare was killed while it waited", async () => {
    const r = runner(true);
    r.restock();
    const spares = await spareFfmpegs();
    expect(spares).toHaveLength(1);
    // Killed and taken in the same tick: the runner has not seen it die.
    process.kill(spares[0] as number, "SIGKILL");
    const run = await collect(r, greyFrames(16, 8, 3));
    expect(run).toMatchObject({ code: 0, warm: false });
    expect(run.bytes.length).toBe(16 * 8 * 3);
  });

  it("starts cold again after close, and keeps no spare", async () => {
    const r = runner(true);
    r.restock();
    r.close();
    const run = await collect(r, greyFrames(8, 8, 1));
    expect(run).toMatchObject({ code: 0, warm: false });
    r.restock();
    expect((await collect(r, greyFrames(8, 8, 1))).warm).toBe(false);
  });

  it("lets its process exit with a spare waiting, and the spare ends with it", async () => {
    const module = fileURLToPath(new URL("./graph-process.ts", import.meta.url));
    // The spare's pid is not exposed: the child lists its own ffmpeg children before it ends.
    const helper = fileURLToPath(new URL("../../../test/restore/processes.ts", import.meta.url));
    const script = `
      const { createGraphRunner } = await import(${JSON.stringify(module)});
      const { spareFfmpegs } = await import(${JSON.stringify(helper)});
      const r = createGraphRunner({ spares: 1 });
      await r.run("testsrc2=s=8x8:d=0.04,format=gray[out0]");
      r.restock();
      console.log((await spareFfmpegs()).join(" "));
    `;
    const args = ["--import", "tsx", "--input-type=module", "-e", script];
    // Held open by its spare, it would never end: stopped (and failed) after 15 s.
    const child = spawn(process.execPath, args, { timeout: 15_000 });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    const started = Date.now();
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    const pids = out.trim().split(/\s+/).map(Number);
    expect(pids).toHaveLength(1);
    // Its stdin closed with its parent: it reads an empty graph and exits.
    const gone = async (pid: number) => {
      for (let i = 0; i < 50; i++) {
        const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
        // Exited: reaped, or a zombie its new parent has yet to reap.
        if (stat === null || stat.split(") ")[1]?.startsWith("Z")) return true;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return false;
    };
    expect(await gone(pids[0] as number)).toBe(true);
  });
});
