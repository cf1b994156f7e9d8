/**
 * The CLI under a pseudo-terminal (util-linux `script`), as a person at a keyboard runs it:
 * stdin and stderr are a TTY, so bars are drawn and questions asked. Keys can be typed at
 * chosen moments — after a prompt appears, or before anything is shown (type-ahead).
 */
import { spawn } from "node:child_process";
import { cliCommand, ROOT } from "./harness.js";

/**
 * What a person types: `keys` once `after` shows on the screen and `when` has resolved (at once
 * when both are absent) — `when` for a moment only the server sees, e.g. an upload being held.
 */
export interface Keystrokes {
  after?: RegExp;
  when?: Promise<unknown>;
  keys: string;
}

/** A finished run: its exit code and everything drawn on the terminal. */
interface PtyResult {
  code: number | null;
  output: string;
}

/** Keys as a terminal sends them. */
export const KEY = {
  enter: "\r",
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  left: "\x1b[D",
  ctrlC: "\x03",
} as const;

/** The screen text without colour, cursor and erase sequences. */
export function stripAnsi(text: string): string {
  const esc = String.fromCharCode(27);
  return text.replace(new RegExp(`${esc}\\[[0-9;?]*[A-Za-z]|${esc}[78]`, "g"), "");
}

/** Which `kinora` runs, and where. */
interface PtyOptions {
  /** Another `kinora` executable (an installed package's bin); default: the source. */
  bin?: string;
  /** The working directory (default: the repository). */
  cwd?: string;
}

/**
 * Runs `kinora ARGS` on a pseudo-terminal with `env`, typing `typed` in order (each waits for
 * its `after` on the screen), and resolves once it exits.
 */
export function runCliInPty(
  args: string[],
  env: Record<string, string>,
  typed: Keystrokes[] = [],
  timeoutMs = 60_000,
  opts: PtyOptions = {},
): Promise<PtyResult> {
  const [node, argv] = opts.bin ? [process.execPath, [opts.bin, ...args]] : cliCommand(args);
  const line = [node, ...argv].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qfec", line, "/dev/null"], {
      cwd: opts.cwd ?? ROOT,
      env: { PATH: process.env.PATH, TERM: "xterm-256color", COLUMNS: "120", ...env },
      // Our stdin stays open until the program exits: script passes it on to the terminal.
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    const queue = [...typed];
    const resolved = new Set<Keystrokes>();
    const ready = (k: Keystrokes) =>
      (!k.when || resolved.has(k)) && (!k.after || k.after.test(stripAnsi(output)));
    for (const k of typed) {
      void k.when?.then(() => {
        resolved.add(k);
        typeDue();
      });
    }
    const typeDue = () => {
      while (queue[0] && ready(queue[0])) {
        const next = queue.shift();
        if (next && !child.stdin.destroyed) child.stdin.write(next.keys);
      }
    };
    const onData = (c: Buffer) => {
      output += c.toString("utf8");
      typeDue();
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`timed out under the pty:\n${stripAnsi(output)}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, output });
    });
    typeDue();
  });
}
