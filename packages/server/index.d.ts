/** The server's commands, as src/server-commands.ts exports them (the package's entry point). */

/** The commands `runServerCommand` runs. */
export declare const SERVER_COMMANDS: readonly ["serve", "worker", "admin"];

/** Whether `name` is one of the server's commands. */
export declare function isServerCommand(name: string | undefined): boolean;

/** The usage lines of the server's commands, indented as `kinora --help` shows them. */
export declare function serverUsageLines(): string[];

/**
 * Runs `serve`, `worker` or `admin` with its arguments (`argv[0]` is the command). Resolves with
 * the exit code, or -1 when the process must keep running (a server or a worker: they exit on
 * SIGINT/SIGTERM).
 */
export declare function runServerCommand(argv: string[]): Promise<number>;

/** The line a failed command prints: a configuration or setup problem as its message, else the stack. */
export declare function failureMessage(err: unknown): string;

/** `kinora-server …`: runs the command and ends the process with its exit code. */
export declare function serverMain(argv: string[]): void;
