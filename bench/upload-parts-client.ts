/**
 * The client side of the parts benchmark, run in its own process as a real client would be:
 * the SDK's uploadParts sends the file through the bench server's upload routes, then asks it
 * to complete. Prints `<seconds> <peak RSS MB> <CPU seconds>` (its start-up excluded).
 * Usage: tsx bench/upload-parts-client.ts <server> <key> <file> <concurrency>
 * (BENCH_PHASES=1: the timeline of each upload on stderr, below.)
 */
import { type PartsTransport, uploadParts } from "../packages/client/src/index.js";

const [server, key, file, concurrency] = process.argv.slice(2);
if (!server || !key || !file) throw new Error("usage: <server> <key> <file> <concurrency>");

async function call<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${server}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key, ...(body as object) }),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const transport: PartsTransport = {
  state: () => call("/bench/state", {}),
  links: (parts) => call("/bench/links", { parts }),
  report: (part) => call("/bench/report", { part }),
};

// A real client has called the API before it uploads (the create that answered the plan), so
// its fetch is loaded: a process's first fetch loads undici (50-110 ms here, measured
// 2026-12-02), start-up like the rest of this process's, so it happens before the clock starts.
await (await fetch(`${server}/bench/warm`, { method: "POST" })).arrayBuffer();
// Loaded: wait for the bench to say go (bench/upload-parts-procs.ts startChild).
process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));

let peak = process.memoryUsage.rss();
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 50);
const cpu0 = process.cpuUsage();
const faults0 = process.resourceUsage().minorPageFault;
const started = performance.now();
// BENCH_PHASES=1: when the first byte went out, when the last did (progress at the whole size),
// when the last part was reported and when the upload was completed, and when each part was
// reported (ms from the start, on stderr): where a round's time goes, at its start and its end.
// And when each 128 MiB had gone out: how fast the lanes get going.
const phases = process.env.BENCH_PHASES
  ? { first: 0, allSent: 0, parts: [] as number[], marks: [] as number[] }
  : null;
const MARK_BYTES = 128 * 1024 * 1024;
const since = () => Math.round(performance.now() - started);
await uploadParts(transport, file, {
  concurrency: Number(concurrency ?? 4),
  ...(phases && {
    onProgress: (done: number, total: number) => {
      if (!phases.first && done > 0) phases.first = since();
      if (!phases.allSent && done === total) phases.allSent = since();
      while (done >= (phases.marks.length + 1) * MARK_BYTES) phases.marks.push(since());
    },
    onPart: () => phases.parts.push(since()),
  }),
});
const reported = since();
await call("/bench/complete", {});
if (phases) {
  process.stderr.write(
    `PHASES first byte ${phases.first} ms, all sent ${phases.allSent}, reported ${reported}, completed ${since()}; parts reported at ${phases.parts.join(",")}; each 128 MiB sent by ${phases.marks.join(",")}\n`,
  );
}
clearInterval(sampler);
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
  `${(performance.now() - started) / 1000} ${peak / 1048576} ${(cpu.user + cpu.system) / 1e6} ${process.resourceUsage().minorPageFault - faults0}`,
);
