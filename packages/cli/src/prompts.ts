/**
 * Questions to a person (drawn on stderr so stdout stays the result). With no
 * terminal to ask on, a command never hangs waiting: it stops with a usage error saying which
 * flag answers the question instead.
 */
import { createInterface } from "node:readline";
import { Interrupted, UsageError } from "./failures.js";
import type { Output, Streams } from "./output.js";

/** Whether a typed answer agrees to a price: only `y` or `yes`, in any case, spaces ignored. */
export function isYes(answer: string): boolean {
  return /^(y|yes)$/i.test(answer.trim());
}

/** How long to read and drop keys typed before the question is shown. */
const TYPE_AHEAD_MS = 60;

/**
 * Drops whatever was typed before the question appeared (a stray `y` + Enter typed while the
 * price was being fetched must not answer a question the person has not seen yet).
 */
async function discardTypeAhead(stdin: Streams["stdin"]): Promise<void> {
  // cast: a TTY stdin has setRawMode; a test's or a pipe's does not, and it is checked before use
  const tty = stdin as Streams["stdin"] & { setRawMode?: (raw: boolean) => void };
  if (!tty.isTTY || typeof tty.setRawMode !== "function") return;
  // Raw mode makes a half-typed line readable too, so it is dropped with the rest.
  tty.setRawMode(true);
  const drop = () => {};
  tty.on("data", drop);
  await new Promise((r) => setTimeout(r, TYPE_AHEAD_MS));
  tty.off("data", drop);
  tty.pause();
  tty.setRawMode(false);
}

/**
 * Asks before spending money, as a line the person types: only an explicit `y` or `yes`
 * agrees; anything else — Enter alone, stray words, arrow keys, Ctrl-D — is No. (A toggle
 * widget flipped to Yes on a stray `l` + Enter: the vim keys move its selection.) `--yes`
 * answers for the person; without it and without a terminal this is a usage error (exit 2),
 * never a silent spend and never a hang. Ctrl-C at the question is an interruption.
 */
export async function confirmSpend(out: Output, question: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!out.canPrompt) {
    throw new UsageError(
      `${question} — there is no terminal to ask on; pass --yes to agree to the price.`,
    );
  }
  const { stdin, stderr } = out.streams;
  await discardTypeAhead(stdin);
  const rl = createInterface({ input: stdin, output: stderr, terminal: true, historySize: 0 });
  try {
    const answer = await new Promise<string | undefined>((resolve, reject) => {
      rl.on("SIGINT", () => reject(new Interrupted("Cancelled; nothing was charged.")));
      rl.on("close", () => resolve(undefined));
      rl.question(`${question} Type y to agree [y/N]: `, resolve);
    });
    if (answer === undefined) {
      stderr.write("\n");
      return false;
    }
    const agreed = isYes(answer);
    const typed = answer.trim();
    if (!agreed && typed !== "" && !/^(n|no)$/i.test(typed)) {
      stderr.write("Taken as No: only y or yes agrees.\n");
    }
    return agreed;
  } finally {
    rl.close();
  }
}

/**
 * A secret typed without echo on a terminal, or the first line of piped stdin
 * (`cat key.txt | kinora login`): a key passed as an argument would show in `ps`.
 */
export async function askSecret(out: Output, question: string): Promise<string | undefined> {
  if (out.canPrompt) {
    const { isCancel, password } = await import("@clack/prompts");
    const answer = await password({
      message: question,
      input: out.streams.stdin,
      output: out.streams.stderr,
    });
    if (isCancel(answer)) throw new Interrupted("Cancelled; nothing was saved.");
    return answer.trim();
  }
  if (out.streams.stdin.isTTY) return undefined;
  const lines = createInterface({ input: out.streams.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    lines.close();
    return line.trim();
  }
  return undefined;
}
