/**
 * `npx tsx bench/segments.ts`: the capacity of segmented restores (issue 37), for the model in
 * docs/capacity.md. Not a timed test: it prints what it measured.
 *
 * - Work per minute of video: each quality's picture restored as segments on one ffmpeg thread
 *   (`-threads 1 -filter_threads 1`, as a worker runs one segment per core), in CPU seconds
 *   (ffmpeg's own `-benchmark` user + system time: what a free core would spend, whatever else
 *   the machine is doing); the sound's pass over the whole file; the analysis (wall); the join.
 * - A segment's fixed cost (process start, the seek and the look-back decoded and filtered
 *   before its first frame, the look-ahead after its last): two segments of different lengths
 *   from the middle of the clip, fitted to cost = fixed + per-second × length.
 * - What is paid once per tape and grows with it, on a long SD file (the clip copied end to
 *   end): the frame listing, the analysis (its loudness pass reads the whole track), the sound's
 *   pass, and the join (a restored segment listed over and over, with the long file's sound).
 * - 2 segments side by side against 1 at a time, the same segments in the same run (1, then 2,
 *   then 1 again, so a change in the machine's load falls on both), wall time.
 *
 * Sources: SD 720×576 25i (top field first, MPEG-2 as a DVD recorder writes it, GOP 15, grain,
 * a tone with 50 Hz hum) and 1080p25 (H.264, GOP 50), both a pan over a photograph.
 * Environment: BENCH_SD_SEC (default 24), BENCH_HD_SEC (12; 0 skips HD), BENCH_SPEEDUP_SEC
 * (48, SD Enhanced, in 4 segments), BENCH_LONG_MIN (10: the SD clip copied end to end, for
 * the costs paid once per tape), BENCH_QUALITIES (faithful,enhanced,enhanced_max).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { runFfmpeg } from "../src/engines/ffmpeg.js";
import {
  buildConcatList,
  buildJoinArgs,
  joinSegments,
  restoreSound,
} from "../src/engines/restore/join.js";
import { probeSource } from "../src/engines/restore/probe.js";
import { runFfmpegForMedia } from "../src/engines/restore/run.js";
import {
  analyseForSegments,
  restoreSegment,
  type SegmentedAnalysis,
  segmentJobs,
} from "../src/engines/restore/segment-run.js";
import { listFrames, type SegmentSpec } from "../src/engines/restore/segments.js";
import type { RestoreQuality } from "../src/engines/restore/types.js";
import { estimateWall } from "./capacity-model.js";

const PHOTO = "/usr/share/wallpapers/Path/contents/images/2560x1600.jpg";
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SD_SEC = env("BENCH_SD_SEC", 24);
const HD_SEC = env("BENCH_HD_SEC", 12);
const SPEEDUP_SEC = env("BENCH_SPEEDUP_SEC", 48);
const LONG_MIN = env("BENCH_LONG_MIN", 10);
const QUALITIES = (process.env.BENCH_QUALITIES ?? "faithful,enhanced,enhanced_max")
  .split(",")
  .filter(Boolean) as RestoreQuality[];

const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-segments-"));
const file = (name: string) => path.join(dir, name);
const load = () => (loadavg()[0] ?? 0).toFixed(1);
const say = (line: string) => process.stdout.write(`${line}\n`);

/** A pan over the photograph with grain and a tone with hum: SD interlaced, or HD progressive. */
async function makeSource(kind: "sd" | "hd", seconds: number): Promise<string> {
  const sd = kind === "sd";
  const [w, h] = sd ? [720, 576] : [1920, 1080];
  const rate = sd ? 50 : 25;
  const out = file(sd ? "sd.mpg" : "hd.mp4");
  const pan = `scale=2560:-2,crop=w=1920:h=1080:x='(iw-1920)*t/${seconds}':y='(ih-1080)*(0.5+0.4*sin(t/3))'`;
  const vf = [pan, `scale=${w}:${h}`, "noise=alls=6:allf=t", "format=yuv420p"];
  if (sd) vf.push("interlace=scan=tff", "setsar=16/15");
  const sound = "0.2*sin(2*PI*440*t)*(0.6+0.4*sin(t))+0.02*sin(2*PI*50*t)+0.01*sin(2*PI*150*t)";
  const args = ["-y", "-loop", "1", "-framerate", String(rate), "-i", PHOTO];
  args.push("-f", "lavfi", "-i", `aevalsrc='${sound}':s=48000:c=stereo`, "-t", String(seconds));
  args.push("-vf", vf.join(","), "-map", "0:v", "-map", "1:a");
  if (sd) {
    args.push("-c:v", "mpeg2video", "-b:v", "8M", "-maxrate", "9M", "-bufsize", "1835k");
    args.push("-g", "15", "-bf", "2", "-flags", "+ilme+ildct", "-top", "1", "-c:a", "mp2");
    args.push("-b:a", "224k", "-f", "dvd");
  } else {
    args.push("-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-g", "50");
    args.push("-c:a", "aac", "-b:a", "192k");
  }
  await runFfmpeg([...args, out]);
  return out;
}

/** A segment of `seconds` whose first frame is the frame nearest `fromSec` (a cut anywhere). */
async function middleSegment(
  input: string,
  fromSec: number,
  seconds: number,
): Promise<SegmentSpec> {
  const frames = await listFrames(input, await probeSource(input));
  const first = frames.times.findIndex((t) => t >= fromSec);
  const last = frames.times.findIndex((t) => t >= fromSec + seconds);
  return {
    index: 1,
    startSec: frames.times[first] as number,
    endSec: frames.times[last] as number,
    frames: last - first,
    onKeyframe: frames.keyframes.includes(first),
    last: false,
  };
}

interface QualityFigures {
  quality: RestoreQuality;
  analysisSec: number;
  /** Picture CPU seconds per minute of video (the per-second slope × 60). */
  pictureCpuPerMin: number;
  /** A segment's fixed CPU seconds. */
  fixedCpuSec: number;
  soundCpuPerMin: number;
  /** ffmpeg's peak memory for the longer segment, MiB. */
  maxRssMib: number;
  /** Bytes of restored picture per minute of video (what the join copies). */
  bytesPerMin: number;
  output: string;
}

/** One quality on one source: analysis, the picture in two segment lengths, the sound. */
async function measureQuality(input: string, seconds: number, quality: RestoreQuality) {
  const a = await analyseForSegments(input, quality, {
    segmentSec: 10_000,
    encode: { threads: 1 },
  });
  const short = 1;
  const long = seconds - 4;
  const cpu: number[] = [];
  let output = "";
  let maxRssMib = 0;
  let bytesPerMin = 0;
  for (const length of [short, long]) {
    const segment = await middleSegment(input, 2, length);
    const job = { plan: a.plan, input, segment, frameSec: a.cut.frameSec };
    const out = file(`q-${quality}-${length}.mp4`);
    const r = await restoreSegment(job, out);
    cpu.push(r.cpuSec);
    maxRssMib = r.maxRssMib;
    bytesPerMin = (statSync(out).size / r.durationSec) * 60;
    output = `${r.width}×${r.height} ${a.plan.video.output.fps ?? "?"} fps`;
  }
  const slope = ((cpu[1] as number) - (cpu[0] as number)) / (long - short);
  const sound = a.plan.audio ? await restoreSound(a.plan, input, file(`s-${quality}.mp4`)) : null;
  const figures: QualityFigures = {
    quality,
    analysisSec: a.elapsedMs / 1000,
    pictureCpuPerMin: slope * 60,
    fixedCpuSec: (cpu[0] as number) - slope * short,
    soundCpuPerMin: sound ? (sound.cpuSec / seconds) * 60 : 0,
    maxRssMib,
    bytesPerMin,
    output,
  };
  return figures;
}

/** Restores `jobs` with `parallel` at a time; wall seconds. */
async function restoreAll(a: SegmentedAnalysis, input: string, parallel: number, tag: string) {
  const jobs = segmentJobs(a.plan, a.cut, input);
  const started = Date.now();
  const paths: string[] = [];
  let cpuSec = 0;
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < jobs.length; i = next++) {
      const out = file(`${tag}-${i}.mp4`);
      const result = await restoreSegment(jobs[i] as (typeof jobs)[number], out);
      cpuSec += result.cpuSec;
      paths[i] = out;
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return { wallSec: (Date.now() - started) / 1000, cpuSec, paths };
}

async function speedup(input: string, seconds: number) {
  const a = await analyseForSegments(input, "enhanced", {
    segmentSec: seconds / 4,
    encode: { threads: 1 },
  });
  say(
    `  ${a.cut.segments.length} segments of ≈ ${(seconds / 4).toFixed(0)} s, Enhanced, load ${load()}`,
  );
  const runs = [] as Array<{ wallSec: number; cpuSec: number; paths: string[] }>;
  for (const [parallel, tag] of [
    [1, "one-a"],
    [2, "two"],
    [1, "one-b"],
  ] as const) {
    const run = await restoreAll(a, input, parallel, tag);
    say(
      `  ${parallel} at a time: ${run.wallSec.toFixed(1)} s wall, ${run.cpuSec.toFixed(1)} CPU s  [load ${load()}]`,
    );
    runs.push(run);
  }
  const [one, two, again] = runs as [(typeof runs)[0], (typeof runs)[0], (typeof runs)[0]];
  const ratio = (one.wallSec + again.wallSec) / 2 / two.wallSec;
  say(`  speed-up with 2 side by side: ×${ratio.toFixed(2)} wall (aim ≥ 1.7)`);
  // What each segment costs when another runs beside it: shared caches and memory bandwidth
  // show as more CPU time for the same work, whatever else loads the machine.
  const efficiency = (one.cpuSec + again.cpuSec) / 2 / two.cpuSec;
  say(
    `  CPU for the same work side by side: ×${(1 / efficiency).toFixed(3)} → on 2 free cores ×${(2 * efficiency).toFixed(2)}`,
  );
  const sound = file("speedup-sound.mp4");
  const s = await restoreSound(a.plan, input, sound);
  const joined = await joinSegments({
    ...a,
    segmentPaths: two.paths,
    audioPath: sound,
    outputPath: file("speedup-joined.mp4"),
  });
  say(
    `  sound pass ${(s.elapsedMs / 1000).toFixed(1)} s wall (${s.cpuSec.toFixed(1)} CPU s), join ${(joined.elapsedMs / 1000).toFixed(2)} s wall for ${seconds} s of video (${joined.frames} frames)`,
  );
}

/** The once-per-tape costs on `minutes` of SD video made of copies of `clip`. */
async function longFileCosts(clip: string, clipSec: number, minutes: number) {
  const copies = Math.ceil((minutes * 60) / clipSec);
  const longSec = copies * clipSec;
  const list = file("long.txt");
  writeFileSync(list, buildConcatList(Array.from({ length: copies }, () => ({ path: clip }))));
  const long = file("long.mpg");
  await runFfmpeg([
    "-y",
    "-f",
    "concat",
    "-safe",
    "0",
    "-i",
    list,
    "-c",
    "copy",
    "-f",
    "dvd",
    long,
  ]);
  const perMin = (sec: number) => ((sec / longSec) * 60).toFixed(2);
  let started = Date.now();
  const frames = await listFrames(long, await probeSource(long));
  const listSec = (Date.now() - started) / 1000;
  say(
    `  frame listing: ${listSec.toFixed(2)} s wall (${perMin(listSec)} s per minute; ${frames.times.length} frames, ${frames.keyframes.length} keyframes)`,
  );
  const a = await analyseForSegments(long, "faithful", { segmentSec: 120, encode: { threads: 1 } });
  say(
    `  analysis (Standard): ${(a.elapsedMs / 1000).toFixed(1)} s wall (${perMin(a.elapsedMs / 1000)} s per minute), ${a.cut.segments.length} segments`,
  );
  const sound = file("long-sound.mp4");
  const s = await restoreSound(a.plan, long, sound);
  say(
    `  sound pass: ${(s.elapsedMs / 1000).toFixed(1)} s wall, ${s.cpuSec.toFixed(1)} CPU s (${perMin(s.cpuSec)} CPU s per minute)`,
  );
  // The join copies packets: its cost is the bytes, so one restored clip listed over and over
  // stands for the tape's segments.
  const segment = await middleSegment(clip, 0, clipSec - 1);
  const restored = file("long-segment.mp4");
  await restoreSegment({ plan: a.plan, input: clip, segment, frameSec: a.cut.frameSec }, restored);
  const span = segment.endSec - segment.startSec;
  const parts = Math.ceil(longSec / span);
  const joinList = file("long-join.txt");
  const entries = Array.from({ length: parts }, () => ({ path: restored, durationSec: span }));
  writeFileSync(joinList, buildConcatList(entries));
  started = Date.now();
  await runFfmpegForMedia(buildJoinArgs(joinList, sound, file("long-joined.mp4"), 0), {}, "muxer");
  const joinSec = (Date.now() - started) / 1000;
  const joinedMB = statSync(file("long-joined.mp4")).size / 1e6;
  say(
    `  join: ${joinSec.toFixed(2)} s wall for ${((parts * span) / 60).toFixed(1)} min, ${joinedMB.toFixed(0)} MB (${perMin(joinSec)} s per minute)  [load ${load()}]`,
  );
  return {
    longMin: longSec / 60,
    analysisSec: a.elapsedMs / 1000,
    joinSecPerMB: joinSec / joinedMB,
  };
}

/** A 2-hour tape's wall time on 1, 4, 16 and 64 workers, in 120 s segments. */
function modelLine(r: QualityFigures & { analysisSec: number; joinSec: number }): string {
  const input = {
    tapeMin: 120,
    segmentSec: 120,
    pictureCpuPerMin: r.pictureCpuPerMin,
    fixedCpuSec: r.fixedCpuSec,
    soundCpuPerMin: r.soundCpuPerMin,
    analysisSec: r.analysisSec,
    joinSec: r.joinSec,
  };
  const cells = [1, 4, 16, 64].map((w) => {
    const e = estimateWall(input, w);
    return `${w}: ${(e.wallSec / 60).toFixed(1)} min${e.critical === "sound" ? " (sound)" : ""}`;
  });
  return `${cells.join("  ")}  [analysis ${r.analysisSec.toFixed(0)} s, join ${r.joinSec.toFixed(0)} s]`;
}

function report(label: string, seconds: number, rows: QualityFigures[]) {
  say(`${label} (${seconds} s clip; CPU s on one thread)`);
  for (const r of rows) {
    const at120 = r.fixedCpuSec / (r.fixedCpuSec + (r.pictureCpuPerMin / 60) * 120);
    say(
      `  ${r.quality.padEnd(13)} → ${r.output.padEnd(20)} picture ${r.pictureCpuPerMin.toFixed(0).padStart(5)} CPU s/min video` +
        `  sound ${r.soundCpuPerMin.toFixed(1).padStart(5)} CPU s/min  segment fixed ${r.fixedCpuSec.toFixed(2)} CPU s` +
        ` (${(at120 * 100).toFixed(1)} % of a 120 s segment)  ${r.maxRssMib} MiB  analysis ${r.analysisSec.toFixed(1)} s wall  [load ${load()}]`,
    );
  }
}

async function main() {
  say(`segmented restore capacity, load ${load()}`);
  const sd = await makeSource("sd", SD_SEC);
  const sdRows: QualityFigures[] = [];
  for (const q of QUALITIES) sdRows.push(await measureQuality(sd, SD_SEC, q));
  if (sdRows.length > 0) report("SD 720×576 25i (MPEG-2)", SD_SEC, sdRows);
  const hdRows: QualityFigures[] = [];
  if (HD_SEC > 0 && QUALITIES.length > 0) {
    const hd = await makeSource("hd", HD_SEC);
    for (const q of QUALITIES) hdRows.push(await measureQuality(hd, HD_SEC, q));
    report("HD 1920×1080 25p (H.264)", HD_SEC, hdRows);
  }
  if (LONG_MIN > 0) {
    say(`once per tape (${LONG_MIN} min of SD)`);
    const once = await longFileCosts(sd, SD_SEC, LONG_MIN);
    const standard = sdRows.find((r) => r.quality === "faithful");
    if (standard) {
      // The analysis grows with the tape by its whole-track parts (loudness, frame listing).
      const perMin = (once.analysisSec - standard.analysisSec) / (once.longMin - SD_SEC / 60);
      const rows = [
        ...sdRows.map((r) => ({ ...r, label: "SD 25i", clipMin: SD_SEC / 60 })),
        ...hdRows.map((r) => ({ ...r, label: "1080p25", clipMin: HD_SEC / 60 })),
      ];
      say("a 2-hour tape (model: docs/capacity.md)");
      for (const r of rows) {
        const analysisSec = r.analysisSec + perMin * (120 - r.clipMin);
        const joinSec = (r.bytesPerMin / 1e6) * 120 * once.joinSecPerMB;
        say(
          `  ${r.label.padEnd(8)} ${r.quality.padEnd(13)} ${modelLine({ ...r, analysisSec, joinSec })}`,
        );
      }
    }
  }
  if (SPEEDUP_SEC > 0) {
    say(`2 segments side by side vs 1 (SD, ${SPEEDUP_SEC} s)`);
    await speedup(SPEEDUP_SEC === SD_SEC ? sd : await makeSource("sd", SPEEDUP_SEC), SPEEDUP_SEC);
  }
}

main().then(
  () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  },
  (err) => {
    console.error(err);
    rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  },
);
