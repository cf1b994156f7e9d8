/** How a `kinora` process ends: with its command's exit code, after its output is written. */

/** Exits once stdout and stderr have taken everything written (pipes are async on some OSes). */
async function exitAfterFlush(code: number): Promise<never> {
  await Promise.all(
    [process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write("", resolve))),
  );
  process.exit(code);
}

/**
 * Ends the process when `run` settles: with its exit code once the output is flushed — except
 * a negative code, which means "keep running" (a server or worker stops on its own signal) —
 * or, when it throws, with `name: <message>` and exit 1.
 */
export function exitWhenDone(
  name: string,
  run: Promise<number>,
  describe: (err: unknown) => string = (err) => (err instanceof Error ? err.message : String(err)),
): void {
  run.then(
    (code) => {
      if (code >= 0) void exitAfterFlush(code);
    },
    (err: unknown) => {
      process.stderr.write(`${name}: ${describe(err)}\n`);
      process.exit(1);
    },
  );
}
