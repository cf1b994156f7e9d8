/**
 * Real kinora processes for cluster tests and benchmarks: `node bin/kinora.js serve|worker`
 * spawned in a process group of their own, so a SIGKILL takes their ffmpeg children with them
 * and nothing outlives the test — every spawned group is also killed when this process exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface KinoraProcess {
  proc: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves when `pattern` appears in the output after `from` (default: anywhere). */
  waitFor(pattern: RegExp, from?: number): Promise<RegExpExecArray>;
  /** SIGKILLs the whole process group; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM to the process only (a graceful stop); resolves with its exit code. */
  stop(): Promise<number | null>;
  readonly exited: Promise<number | null>;
}

const groups = new Set<number>();
process.once("exit", () => {
  for (const pid of groups) killGroup(pid);
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Kills every process group this module spawned and has not seen exit. */
export async function killAll(): Promise<void> {
  for (const pid of groups) killGroup(pid);
  groups.clear();
}

/** A port free right now (bound, read, released), so a node can be restarted on the same one. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/**
 * Spawns `node bin/kinora.js <args>` with only PATH, HOME and `env` (no DATABASE_URL or other
 * kinora setting leaks in from the test's own environment).
 */
export function spawnKinora(args: string[], env: Record<string, string>): KinoraProcess {
  return spawnNode(["bin/kinora.js", ...args], env);
}

/** Spawns `node <argv>` (from the package root) the way spawnKinora does. */
export function spawnNode(argv: string[], env: Record<string, string>): KinoraProcess {
  const proc = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const pid = proc.pid;
  if (pid === undefined) throw new Error("spawn failed");
  groups.add(pid);
  let out = "";
  let gone = false;
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of waiters) w();
  };
  proc.stdout?.on("data", onData);
  proc.stderr?.on("data", onData);
  const exited = new Promise<number | null>((resolve) =>
    proc.once("exit", (code) => {
      gone = true;
      groups.delete(pid);
      for (const w of waiters) w();
      resolve(code);
    }),
  );
  return {
    proc,
    exited,
    output: () => out,
    waitFor(pattern, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const re = new RegExp(pattern.source, pattern.flags.replace("g", ""));
          const m = re.exec(out.slice(from));
          if (m) {
            waiters.delete(check);
            resolve(m);
          } else if (gone) {
            waiters.delete(check);
            reject(new Error(`node ${argv.join(" ")} exited before ${pattern}:\n${out}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    async kill() {
      killGroup(pid);
      await exited;
    },
    async stop() {
      proc.kill("SIGTERM");
      return exited;
    },
  };
}

/** `kinora serve` on `port` (0 = any); resolves once it prints the address it listens on. */
export async function startServe(
  env: Record<string, string>,
  port = 0,
): Promise<KinoraProcess & { url: string }> {
  const p = spawnKinora(["serve"], { HOST: "127.0.0.1", ...env, PORT: String(port) });
  const m = await p.waitFor(/kinora is listening on (http:\/\/\S+)/);
  return Object.assign(p, { url: m[1] as string });
}
