/**
 * `kinora worker --server URL --token T [--concurrency N]`: runs worker loops against a
 * server's HTTP worker API with the executors of this machine (RESTORE_ENGINE=ffmpeg|cog…),
 * so a GPU or CPU box needs only the server URL and WORKER_TOKEN. It runs an executor for
 * every registered kind (src/job-kinds.ts), the same kinds `kinora serve` runs in process. Heartbeats follow the lease
 * the server grants with each job. Stops gracefully on SIGINT/SIGTERM: no new claims, the
 * running job finishes within SHUTDOWN_GRACE_MS or is handed back without using an attempt.
 * Scratch files live in one directory per process, swept at the next start after a crash.
 * A kind this machine cannot run (no ffmpeg, an optional package not installed) is named at
 * start with what it lacks and not claimed; a worker that can run no kind exits 1 saying so.
 */
import { hostname } from "node:os";
import { CliFailure, UsageError } from "../packages/cli/src/failures.js";
import { parseCommandLine } from "../packages/cli/src/index.js";
import { LOOPBACK_URLS_ON, loadConfig } from "./config.js";
import { JOB_KINDS } from "./job-kinds.js";
import { type ExecutorSeams, type JobKind, workerExecutors } from "./kinds/kind.js";
import { checkRegistry } from "./kinds/registry.js";
import { createLogger } from "./logger.js";
import { createHttpWorkSource } from "./workers/http-source.js";
import { type RunningWorker, startWorkerLoop } from "./workers/loop.js";
import { executorsOrExplain, NothingToRunError } from "./workers/readiness.js";
import { openScratch } from "./workers/scratch.js";

/** One line on how to run a remote worker. */
const WORKER_USAGE =
  "kinora worker --server URL --token WORKER_TOKEN [--concurrency N]   (token also from WORKER_TOKEN)";

/** `kinora worker`'s options, parsed as every client command's are (node:util parseArgs). */
const WORKER_COMMAND = {
  name: "worker",
  options: {
    token: { type: "string" },
    concurrency: { type: "string" },
  },
} as const;

/** Running worker loops: stop() lets each finish its job (or hand it back) and cleans up. */
interface WorkerHandle {
  stop(graceMs?: number): Promise<void>;
}

/** What a test may change: the kinds run (default: the registry) and how executors fetch. */
interface RemoteWorkerOptions {
  kinds?: readonly JobKind[];
  seams?: ExecutorSeams;
  /** How the worker API is reached (default: the real fetch). */
  fetch?: ExecutorSeams["fetch"];
  /** How long one claim waits for work (default 20 s: a long poll). */
  claimWaitMs?: number;
}

/** Parses `kinora worker`'s command line and starts its loops against the server's worker API. */
export async function startRemoteWorkers(
  argv: string[],
  env = process.env,
  opts: RemoteWorkerOptions = {},
): Promise<WorkerHandle> {
  const { values, positionals } = parseCommandLine(WORKER_COMMAND, argv);
  const flag = (name: string) => {
    const value = values[name];
    return typeof value === "string" ? value : undefined;
  };
  if (positionals.length > 0)
    throw new UsageError(`Unexpected ${positionals[0]}.\n${WORKER_USAGE}`);
  const config = loadConfig(env);
  const server = flag("server") ?? config.env.KINORA_SERVER;
  const token = flag("token") ?? config.workers.token;
  if (!server) throw new UsageError(`--server is required.\n${WORKER_USAGE}`);
  if (!token) throw new UsageError(`--token (or WORKER_TOKEN) is required.\n${WORKER_USAGE}`);
  const concurrency = Number(flag("concurrency") ?? 1);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    throw new UsageError("--concurrency must be an integer from 1 to 64.");
  }
  const log = createLogger(config.logLevel);
  const source = createHttpWorkSource({ server, token, fetch: opts.fetch });
  const executors = executorsOrExplain(
    workerExecutors(checkRegistry(opts.kinds ?? JOB_KINDS), config, opts.seams),
    log,
  );
  const scratch = await openScratch(config.workers.scratchRoot);
  const loops: RunningWorker[] = [];
  for (let i = 0; i < concurrency; i++) {
    loops.push(
      startWorkerLoop({
        workerId: `${hostname()}-${process.pid}-w${i}`,
        source,
        executors,
        log,
        claimWaitMs: opts.claimWaitMs ?? 20_000,
        scratchDir: scratch.dir,
      }),
    );
  }
  log.info("kinora worker started", {
    server,
    concurrency,
    kinds: executors.map((e) => e.kind),
  });
  if (config.allowLoopbackUrls) log.warn(LOOPBACK_URLS_ON);
  return {
    async stop(graceMs = config.shutdownGraceMs) {
      await Promise.all(loops.map((l) => l.stop(graceMs)));
      await scratch.close();
    },
  };
}

/**
 * Runs `kinora worker` until SIGINT or SIGTERM (-1: keep the process). A wrong command line
 * exits 2, as every client command's does.
 */
export async function runWorkerCommand(argv: string[]): Promise<number> {
  let handle: WorkerHandle;
  try {
    handle = await startRemoteWorkers(argv);
  } catch (err) {
    if (err instanceof NothingToRunError) {
      process.stderr.write(`kinora worker: ${err.message}\n`);
      return 1;
    }
    if (!(err instanceof CliFailure)) throw err;
    process.stderr.write(`kinora worker: ${err.message}\n`);
    return err.exitCode;
  }
  const stop = () => {
    handle.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return -1;
}
