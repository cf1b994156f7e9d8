/** The message for a job that carries on on the server after the client stopped watching. */
import { CliFailure, Interrupted } from "../failures.js";

/**
 * Adds "how to pick it up again" to a failure after the upload: the job is paid and finishes (or
 * stays downloadable) without us, so Ctrl-C or a lost connection must not read as "lost".
 */
export function resumeHint(err: unknown, id: string, stage: "follow" | "download"): unknown {
  const hint =
    stage === "follow"
      ? `${id} keeps running on the server: follow it with \`kinora get ${id} --follow\`, save it with \`kinora get ${id} --download PATH\`, or see \`kinora jobs\`.`
      : `The result stays on the server for now (typically 48 hours): save it with \`kinora get ${id} --download PATH\`.`;
  const stopped = stage === "follow" ? "Stopped following." : "Download stopped.";
  if (err instanceof Interrupted) return new Interrupted(`${stopped} ${hint}`);
  if (err instanceof CliFailure && err.fields.network) {
    return new CliFailure(`${err.message} ${hint}`, err.exitCode, err.fields);
  }
  return err;
}
