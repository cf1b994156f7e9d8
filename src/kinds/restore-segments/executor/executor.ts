/**
 * What a worker runs for a segmented restore's unit, from its work item alone (so any worker,
 * in-process or remote, runs any unit): a segment's picture, read from the restore's input by
 * HTTP range requests (only its window, not the whole file) and restored with the whole file's
 * plan; the sound of the whole file, once; or the join — every segment's file and the sound
 * fetched, joined without re-encoding the picture, and stored as the restore's result.
 */
import path from "node:path";
import { unmetFfmpegNeeds } from "../../../engines/ffmpeg.js";
import {
  type CutPlan,
  joinSegments,
  MediaError,
  type RestorePlan,
  restoreSegment,
  restoreSound,
} from "../../../engines/restore/index.js";
import {
  type ExecuteContext,
  type Executor,
  WorkError,
  type WorkItem,
  type WorkResult,
} from "../../../jobs/work.js";
import { storeBeforeAfter } from "../../../workers/before-after.js";
import { downloadInput, type FetchLike, uploadOutput } from "../../../workers/transfer.js";
import { SegmentWorkParams } from "../services/spec.js";

/** The most one segment's file or the sound may weigh when the join fetches it. */
const PART_MAX_BYTES = 4 * 1024 ** 3;

/** The input's fault is the restore's (final); anything else is retried on any worker. */
const asFinal = (err: unknown) =>
  err instanceof MediaError
    ? new WorkError({ kind: "final", message: err.message, code: err.code }, err.detail)
    : err;

type Item = WorkItem<SegmentWorkParams>;

/**
 * The restore's plan and cut plan, as its analysis wrote them: they reach a unit through the
 * database and the worker API as opaque JSON objects (spec.ts's EngineData), read back here.
 */
function planOf(params: SegmentWorkParams): RestorePlan {
  // cast: written by the restore's own analysis from a RestorePlan; only its object shape is checked on the way
  return params.plan as unknown as RestorePlan;
}

function cutOf(cut: NonNullable<SegmentWorkParams["cut"]>): CutPlan {
  // cast: written by the restore's own analysis from a CutPlan; only its object shape is checked on the way
  return cut as unknown as CutPlan;
}

async function runSegment(item: Item, ctx: ExecuteContext, put: Put): Promise<WorkResult> {
  const { segment, frameSec } = item.params;
  if (!segment || frameSec === undefined) throw new Error("a segment unit without its segment");
  const out = path.join(ctx.workDir, "segment.mp4");
  const job = {
    plan: planOf(item.params),
    input: item.inputUrl,
    segment,
    frameSec,
  };
  const made = await restoreSegment(job, out, {
    signal: ctx.signal,
    onProgress: (f) => ctx.progress(0.95 * f),
  });
  const outputBytes = await put(out);
  return { outputBytes, meta: { ...made } };
}

async function runSound(item: Item, ctx: ExecuteContext, put: Put): Promise<WorkResult> {
  const out = path.join(ctx.workDir, "sound.mp4");
  const plan = planOf(item.params);
  const made = await restoreSound(plan, item.inputUrl, out, { signal: ctx.signal });
  const outputBytes = await put(out);
  return { outputBytes, meta: { ...made } };
}

async function runJoin(
  item: Item,
  ctx: ExecuteContext,
  put: Put,
  fetchImpl: FetchLike,
): Promise<WorkResult> {
  const { parts, cut, sound } = item.params;
  if (!parts || !cut) throw new Error("a join unit without its parts");
  const fetchTo = async (url: string, name: string) => {
    const file = path.join(ctx.workDir, name);
    await downloadInput(fetchImpl, url, file, PART_MAX_BYTES, ctx.signal);
    return file;
  };
  const segmentPaths: string[] = [];
  for (const [i, url] of parts.entries()) {
    segmentPaths.push(await fetchTo(url, `part-${i}.mp4`));
    ctx.progress((0.5 * (i + 1)) / parts.length);
  }
  const audioPath = sound ? await fetchTo(sound, "sound.mp4") : null;
  const outputPath = path.join(ctx.workDir, "output.mp4");
  const joined = await joinSegments({
    plan: planOf(item.params),
    cut: cutOf(cut),
    segmentPaths,
    audioPath,
    outputPath,
    signal: ctx.signal,
  });
  ctx.progress(0.8);
  const outputBytes = await put(outputPath);
  await joinedStill(item, ctx, outputPath, joined, fetchImpl);
  return { outputBytes, meta: { ...joined } };
}

/**
 * The before/after still (and full-size frames) of the joined result, as a one-piece restore's
 * worker makes them: the input read at the middle by a range request.
 */
async function joinedStill(
  item: Item,
  ctx: ExecuteContext,
  outputPath: string,
  joined: { durationSec: number; width: number; height: number },
  fetchImpl: FetchLike,
): Promise<void> {
  const { still, frames } = item.params;
  if (!still) return;
  const sources = { inputPath: item.inputUrl, outputPath, ...joined };
  await storeBeforeAfter(fetchImpl, item, { still, frames }, ctx, sources);
}

type Put = (file: string) => Promise<number>;

/** The units' executor: one of the three by the item's role. */
export function createSegmentExecutor(
  opts: { fetch?: FetchLike } = {},
): Executor<SegmentWorkParams> {
  const fetchImpl: FetchLike = opts.fetch ?? ((url, init) => fetch(url, init));
  return {
    kind: "restoreseg",
    params: SegmentWorkParams,
    unmetNeeds: () => unmetFfmpegNeeds(),
    async execute(item, ctx) {
      const put: Put = (file) => uploadOutput(fetchImpl, item, file, "video/mp4", ctx.signal);
      try {
        const result =
          item.params.role === "segment"
            ? await runSegment(item, ctx, put)
            : item.params.role === "sound"
              ? await runSound(item, ctx, put)
              : await runJoin(item, ctx, put, fetchImpl);
        ctx.progress(1);
        return result;
      } catch (err) {
        throw asFinal(err);
      }
    },
  };
}
