/**
 * Questions to a person (@clack/prompts, drawn on stderr so stdout stays the result). With no
 * terminal to ask on, a command never hangs waiting: it stops with a usage error saying which
 * flag answers the question instead.
 */
import { createInterface } from "node:readline";
import { Interrupted, UsageError } from "./failures.js";
import type { Output } from "./output.js";

/**
 * Asks before spending money. `--yes` answers for the person; without it and without a
 * terminal this is a usage error (exit 2), never a silent spend and never a hang.
 */
export async function confirmSpend(out: Output, question: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!out.canPrompt) {
    throw new UsageError(
      `${question} — there is no terminal to ask on; pass --yes to agree to the price.`,
    );
  }
  // Loaded only when a person is there to answer.
  const { confirm, isCancel } = await import("@clack/prompts");
  const answer = await confirm({
    message: question,
    initialValue: false,
    input: out.streams.stdin,
    output: out.streams.stderr,
  });
  // Ctrl-C or Esc at the question: as interrupted as Ctrl-C anywhere else.
  if (isCancel(answer)) throw new Interrupted("Cancelled; nothing was charged.");
  return answer === true;
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
