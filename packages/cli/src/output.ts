/**
 * Where a command's words go. The result goes to stdout: human lines, or with `--json` exactly
 * one JSON document and nothing else. Running commentary ("uploading…") goes to stderr — and
 * under `--json` only when stderr is a terminal, so a script's stderr stays quiet too. Progress
 * bars and spinners appear only on a terminal.
 */
import type { Readable, Writable } from "node:stream";

/** The three streams a command uses (process's, or a test's). */
export interface Streams {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
}

export class Output {
  constructor(
    readonly streams: Streams,
    readonly json: boolean,
  ) {}

  /** stderr is a terminal: bars, spinners and commentary can be drawn there. */
  get interactive(): boolean {
    return this.streams.stderr.isTTY === true;
  }

  /** A person can answer a prompt: both the keyboard and the screen are terminals. */
  get canPrompt(): boolean {
    return this.streams.stdin.isTTY === true && this.interactive;
  }

  /** The command's result: `doc` as JSON with --json, else the human lines. */
  result(doc: unknown, human: string | string[]): void {
    if (this.json) {
      this.streams.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
      return;
    }
    const lines = Array.isArray(human) ? human : [human];
    if (lines.length > 0) this.streams.stdout.write(`${lines.join("\n")}\n`);
  }

  /** Commentary for a person watching; silent for scripts reading --json. */
  note(message: string): void {
    if (!this.json || this.interactive) this.streams.stderr.write(`${message}\n`);
  }

  /** A line a person must see even in --json mode (it is on stderr, never stdout). */
  warn(message: string): void {
    this.streams.stderr.write(`${message}\n`);
  }
}
