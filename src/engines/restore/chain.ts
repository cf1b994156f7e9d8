/**
 * Turns a RestorePlan into ffmpeg filter chains and argument lists. Pure: the same plan always
 * gives the same arguments, so the benchmark can run bare ffmpeg with exactly our chain.
 */
import { leavesColourGrain } from "./denoise.js";
import { dropoutRepairFilter } from "./dropouts.js";
import type { AudioPlan, Deblock, Denoise, NlMeans, RestorePlan, VideoPlan } from "./types.js";

/**
 * Escapes a value for a filter option inside a filtergraph: once for the option parser
 * (`\ ' :`), then again for the graph parser (`\ ' [ ] , ;`), per ffmpeg-filters "Notes on
 * filtergraph escaping". Arguments never pass through a shell, so that is all there is.
 */
export function escapeFilterValue(value: string): string {
  const option = value.replace(/[\\':]/g, "\\$&");
  return option.replace(/[\\'[\],;]/g, "\\$&");
}

/** Where the two-pass stabiliser keeps its transforms: beside the output, removed afterwards. */
export function transformsPathFor(outputPath: string): string {
  return `${outputPath}.vidstab.trf`;
}

const fmt = (x: number): string => String(Math.round(x * 1000) / 1000);

function deinterlaceFilter(d: NonNullable<VideoPlan["deinterlace"]>): string {
  // deint=all: synthetic or re-encoded sources often lose the per-frame interlaced flag.
  return `${d.filter}=mode=${d.sendField ? "send_field" : "send_frame"}:parity=${d.parity}:deint=all`;
}

/** Non-local means at `factor` × the plan's strength (the motion average's second pass: 0.4). */
export function nlmeansFilter(d: NlMeans, factor = 1): string {
  return `nlmeans=s=${fmt(d.strength * factor)}:p=${d.patch}:pc=5:r=${d.research}:rc=9`;
}

/** The colour planes evened out over frames before the non-local means; null: none. */
export function colourTemporalFilter(d: NlMeans): string | null {
  const t = d.colourTemporal;
  if (!t) return null;
  // The colour planes only (p=6: planes 1 and 2); 2 frames either side, well within a
  // segment's context (segment-chain.ts).
  const [a, b] = [fmt(t.a), fmt(t.b)];
  return `atadenoise=0a=${a}:0b=${b}:1a=${a}:1b=${b}:2a=${a}:2b=${b}:s=${t.frames}:p=6`;
}

/** One denoise step as ffmpeg filters. */
export function denoiseFilter(d: Denoise): string {
  if (d.filter === "nlmeans") {
    const colour = colourTemporalFilter(d);
    return colour ? `${colour},${nlmeansFilter(d)}` : nlmeansFilter(d);
  }
  return `hqdn3d=${fmt(d.lumaSpatial)}:${fmt(d.chromaSpatial)}:${fmt(d.lumaTemporal)}:${fmt(d.chromaTemporal)}`;
}

/**
 * Resize (and BT.601 → BT.709) without letting 4:2:0 chroma leak into luma. `denoised`: the plan
 * takes grain out with hqdn3d, and its colour planes carry what the denoiser leaves; with zscale they are
 * then first brought to 4:4:4 bilinearly at the source's size (16 bits, the matrix changed
 * there), and only then are all three planes resized with lanczos. Lanczos on the half-size
 * colour planes kept that grain, sharp and ringing, and the 720-line encode kept it; on clean
 * pictures it keeps colour detail bilinear loses (docs/restore.md, "Fine grain's colour at
 * Enhanced").
 */
export function scaleFilter(s: NonNullable<VideoPlan["scale"]>, denoised: boolean): string {
  if (s.filter === "zscale") {
    const matrix = s.convertMatrixTo709 ? ":matrixin=470bg:matrix=709" : "";
    const lanczos = s.taps ? `lanczos:param_a=${s.taps}` : "lanczos";
    if (!denoised) return `zscale=w=${s.width}:h=${s.height}:filter=${lanczos}${matrix}`;
    const colour = `zscale=filter=bilinear${matrix},format=yuv444p16le`;
    return `${colour},zscale=w=${s.width}:h=${s.height}:filter=${lanczos}`;
  }
  const matrix = s.convertMatrixTo709 ? ":in_color_matrix=bt601:out_color_matrix=bt709" : "";
  const taps = s.taps ? `:param0=${s.taps}` : "";
  return `scale=${s.width}:${s.height}:flags=lanczos+accurate_rnd+full_chroma_int${taps}${matrix}`;
}

/**
 * ffmpeg's weak deblock on 8-px blocks: where a step across a block edge is under `alpha` (of
 * the 8-bit range) and the two pixels either side are within `beta` of each other, the two
 * pixels at the edge meet half way. Coarser steps are edges of the picture and stay. Or pp7 at a
 * constant quantiser: each 8×8 block's DCT thresholded, which evens out a starved encode's blocks
 * where the picture is flat (medium thresholding). Or the weak one on the luma beside a DCT
 * threshold on the colour planes alone: fspp (`fspp-colour`) or pp7 (`pp7-colour`).
 */
export function deblockFilter(d: Deblock): string {
  if (d.filter === "pp7") return `pp7=qp=${d.qp}:mode=medium`;
  const weak = `deblock=filter=weak:block=8:alpha=${d.alpha}:beta=${d.beta}:gamma=${d.beta}`;
  if (d.filter === "pp7-colour") return besideWeakLuma(weak, `pp7=qp=${d.qp}:mode=medium`);
  if (d.filter === "fspp-colour") {
    return besideWeakLuma(weak, `fspp=quality=4:qp=${d.qp}:strength=${d.strength}`);
  }
  return weak;
}

/**
 * The weak deblock's luma beside `colour` run on each colour plane alone, as gray: on the whole
 * picture it would also filter the luma thrown away (pp7: 2.4× the time on SD), and mergeplanes
 * needs all its inputs in one format or it converts them (gray's range: 27 dB of colour lost).
 * The planes are those `colour` gives a whole yuv420p frame, byte for byte (deblock-colour.test).
 */
function besideWeakLuma(weak: string, colour: string): string {
  return (
    `format=yuv420p,extractplanes=y+u+v[db_y][db_u][db_v];[db_y]${weak}[db_w];` +
    `[db_u]${colour}[db_cu];[db_v]${colour}[db_cv];[db_w][db_cu][db_cv]mergeplanes=0x001020:yuv420p`
  );
}

function toneFilter(v: VideoPlan): string | null {
  if (!v.levels && v.saturation === null) return null;
  const parts: string[] = [];
  if (v.levels) {
    const { pivot, gain } = v.levels;
    parts.push(`y='clip(${fmt(pivot)}+(val-${fmt(pivot)})*${fmt(gain)},0,255)'`);
  }
  if (v.saturation !== null) {
    const chroma = `'clip(128+(val-128)*${fmt(v.saturation)},0,255)'`;
    parts.push(`u=${chroma}`, `v=${chroma}`);
  }
  return `lutyuv=${parts.join(":")}`;
}

/**
 * The filters that must precede stabilisation, shared by its detect pass and the main pass.
 * Rotation is not among them: ffmpeg's autorotation turns the frames upright before our chain
 * and resets the output's display matrix. Turning them ourselves under -noautorotate would keep
 * the matrix (ffmpeg 5.1 copies it), and players would turn the picture a second time.
 */
function frontFilters(v: VideoPlan): string[] {
  const out: string[] = [];
  if (v.deinterlace) out.push(deinterlaceFilter(v.deinterlace));
  // After deinterlacing, so 4:2:2 / 4:1:1 chroma is converted on whole frames, not fields.
  out.push("format=yuv420p");
  return out;
}

/**
 * The picture's chain in three parts: the filters before the denoise, the denoise steps, and
 * those after it (the motion average runs its own process boundary between them).
 */
export function videoFilterParts(
  plan: RestorePlan,
  transformsPath: string,
): { before: string[]; denoise: Denoise[]; after: string[] } {
  const v = plan.video;
  const out = frontFilters(v);
  // First: a streak must not be smoothed into its neighbourhood or moved with the colour.
  if (v.dropouts) out.push(dropoutRepairFilter(v.dropouts));
  // On the yuv420p frames the slip was measured on, before anything blurs or moves them.
  if (v.chromaShift) out.push(`chromashift=cbh=${v.chromaShift}:crh=${v.chromaShift}`);
  if (v.stabilise) {
    out.push(
      `vidstabtransform=input=${escapeFilterValue(transformsPath)}:smoothing=${v.stabilise.smoothing}:optzoom=1:interpol=bicubic`,
    );
  }
  if (v.deflicker) out.push("deflicker=size=5:mode=am");
  const before = out.splice(0);
  // At the source's size, where the blur was measured (after denoising: grain is not edges).
  if (v.sharpen)
    out.push(`unsharp=${v.sharpen.size}:${v.sharpen.size}:${fmt(v.sharpen.amount)}:5:5:0`);
  const tone = toneFilter(v);
  if (tone) out.push(tone);
  if (v.crop) out.push(`crop=${v.crop.width}:${v.crop.height}:0:0`);
  // On the source's block grid, so just before the scale moves it.
  if (v.deblock) out.push(deblockFilter(v.deblock));
  // hqdn3d's leftover colour grain only: Studio Max's non-local means leaves less, and there
  // bilinear cost colour detail (docs/restore.md, "Fine grain's colour at Enhanced").
  if (v.scale) out.push(scaleFilter(v.scale, leavesColourGrain(v.denoise)), "setsar=1");
  out.push("format=yuv420p");
  return { before, denoise: v.denoise, after: out };
}

export function buildVideoFilter(plan: RestorePlan, transformsPath: string): string {
  const { before, denoise, after } = videoFilterParts(plan, transformsPath);
  return [...before, ...denoise.map(denoiseFilter), ...after].join(",");
}

/** High-pass and hum notches: the part of the audio chain the loudness probe measures through. */
export function audioPrefilters(audio: Pick<AudioPlan, "highpassHz" | "hum">): string[] {
  const out = [`highpass=f=${audio.highpassHz}`];
  if (audio.hum) {
    for (let k = 1; k <= audio.hum.harmonics; k++) {
      out.push(`bandreject=f=${audio.hum.hz * k}:width_type=h:width=${audio.hum.widthHz}`);
    }
  }
  return out;
}

export function buildAudioFilter(audio: AudioPlan): string {
  const out = audioPrefilters(audio);
  const d = audio.denoise;
  if (d) {
    // afftdn at the delivery rate, so its delay is the plan's number of samples; the end is
    // padded by that much and the start trimmed, so every sound keeps its sample and the
    // length is unchanged.
    out.push(`aresample=${audio.sampleRate}`, `apad=pad_len=${d.delaySamples}`);
    out.push(`afftdn=nr=${d.reductionDb}:nf=${d.floorDb}:tn=1`);
    // Back by exactly the trimmed samples (not to zero: the track may start after the video).
    out.push(`atrim=start_sample=${d.delaySamples}`);
    out.push(`asetpts=PTS-${d.delaySamples}/${audio.sampleRate}/TB`);
  }
  if (audio.loudness) {
    const l = audio.loudness;
    let ln = `loudnorm=I=${l.targetI}:TP=${l.truePeak}:LRA=${l.lra}`;
    if (l.measured) {
      const m = l.measured;
      // Second pass of two-pass loudnorm: linear gain from the whole-file measurement.
      ln += `:measured_I=${m.inputI}:measured_TP=${m.inputTp}:measured_LRA=${m.inputLra}`;
      ln += `:measured_thresh=${m.inputThresh}:offset=${m.targetOffset}:linear=true`;
    }
    out.push(ln);
  }
  // loudnorm works at 192 kHz internally; bring it back to a delivery rate.
  out.push(`aresample=${audio.sampleRate}`);
  return out.join(",");
}

export function threadArgs(plan: RestorePlan): string[] {
  const t = plan.encode.threads;
  return t ? ["-threads", String(t), "-filter_threads", String(t)] : [];
}

/** x264 at the plan's quality and rate cap, and the colour tag a matrix conversion needs. */
export function videoCodecArgs(plan: RestorePlan): string[] {
  const e = plan.encode;
  const args = ["-c:v", "libx264", "-preset", e.x264Preset, "-crf", String(e.crf)];
  if (e.chromaQpOffset) args.push("-x264-params", `chroma-qp-offset=${e.chromaQpOffset}`);
  args.push("-maxrate", `${e.maxrateK}k`, "-bufsize", `${e.bufsizeK}k`);
  args.push("-profile:v", "high", "-pix_fmt", "yuv420p");
  if (plan.video.scale?.convertMatrixTo709) args.push("-colorspace", "bt709");
  return args;
}

/** The sound's chain and AAC at the delivery rate and channels. */
function audioCodecArgs(plan: RestorePlan, audio: AudioPlan): string[] {
  const args = ["-af", buildAudioFilter(audio), "-c:a", "aac"];
  args.push("-b:a", `${plan.encode.audioBitrateK}k`, "-ac", String(audio.channels));
  args.push("-ar", String(audio.sampleRate));
  return args;
}

/** No subtitles/data, no chapters, no source metadata: phone clips carry GPS positions. */
export const CLEAN_OUTPUT = ["-sn", "-dn", "-map_metadata", "-1", "-map_chapters", "-1"];

/** Players start an MP4 with its index first before the whole file has arrived. */
export const FASTSTART_MP4 = ["-movflags", "+faststart", "-f", "mp4"];

/**
 * The exact ffmpeg argument list (for `runFfmpeg`, which adds -hide_banner -nostdin) that
 * restores `inputPath` to an MP4 at `outputPath` in one process: the chain as a person would
 * run it by hand, and what the benchmark times the engine against. The engine runs the same
 * chain as two passes side by side (`buildVideoPassArgs`, `buildAudioPassArgs`) joined by
 * `buildMuxArgs`. When `plan.video.stabilise` is set, run `buildStabiliseDetectArgs` first: it
 * writes the transforms this pass reads.
 */
export function buildRestoreArgs(
  plan: RestorePlan,
  inputPath: string,
  outputPath: string,
): string[] {
  const args = ["-y", "-i", inputPath, "-map", `0:${plan.source.videoStreamIndex}`];
  if (plan.source.audio && plan.audio) args.push("-map", `0:${plan.source.audio.streamIndex}`);
  args.push("-vf", buildVideoFilter(plan, transformsPathFor(outputPath)));
  args.push(...videoCodecArgs(plan));
  if (plan.audio) args.push(...audioCodecArgs(plan, plan.audio));
  else args.push("-an");
  args.push(...CLEAN_OUTPUT, ...threadArgs(plan), ...FASTSTART_MP4, outputPath);
  return args;
}

/**
 * The picture alone, restored to an MP4 (`faststart` when it is the delivered file, i.e. the
 * plan has no sound to join). The stabiliser's transforms are read from beside `outputPath`.
 */
export function buildVideoPassArgs(
  plan: RestorePlan,
  inputPath: string,
  outputPath: string,
  opts: { faststart: boolean },
): string[] {
  const args = ["-y", "-i", inputPath, "-map", `0:${plan.source.videoStreamIndex}`];
  args.push("-vf", buildVideoFilter(plan, transformsPathFor(outputPath)));
  args.push(...videoCodecArgs(plan), "-an", ...CLEAN_OUTPUT, ...threadArgs(plan));
  args.push(...(opts.faststart ? FASTSTART_MP4 : ["-f", "mp4"]), outputPath);
  return args;
}

/**
 * The sound alone, restored to an MP4 (AAC). Its timestamps count from the input file's start,
 * as the video pass's do, so `buildMuxArgs` joins them where the one-process chain would.
 */
export function buildAudioPassArgs(
  plan: RestorePlan,
  inputPath: string,
  outputPath: string,
): string[] {
  if (!plan.audio || !plan.source.audio) throw new Error("the plan has no sound to restore");
  const args = ["-y", "-i", inputPath, "-map", `0:${plan.source.audio.streamIndex}`, "-vn"];
  args.push(...audioCodecArgs(plan, plan.audio), ...CLEAN_OUTPUT, ...threadArgs(plan));
  args.push("-f", "mp4", outputPath);
  return args;
}

/**
 * Joins the two passes' files into the delivered MP4 by copying their packets. `-copyts` keeps
 * each stream's timestamps as its pass wrote them (both relative to the input's start), so a
 * track that starts after the picture still does; without it each file would start at zero.
 */
export function buildMuxArgs(videoPath: string, audioPath: string, outputPath: string): string[] {
  const args = ["-y", "-copyts", "-i", videoPath, "-i", audioPath];
  // `?`: a track whose header promised sound but that holds no packet leaves the sound's pass
  // an MP4 without a stream; the delivered file is then picture only, as in one process.
  args.push("-map", "0:v:0", "-map", "1:a:0?", "-c", "copy", ...CLEAN_OUTPUT);
  args.push(...FASTSTART_MP4, outputPath);
  return args;
}

/** First pass of stabilisation: measures camera motion into `transformsPathFor(outputPath)`. */
export function buildStabiliseDetectArgs(
  plan: RestorePlan,
  inputPath: string,
  outputPath: string,
): string[] {
  const trf = escapeFilterValue(transformsPathFor(outputPath));
  const chain = [
    ...frontFilters(plan.video),
    `vidstabdetect=result=${trf}:shakiness=5:accuracy=15`,
  ];
  return [
    "-y",
    "-i",
    inputPath,
    "-map",
    `0:${plan.source.videoStreamIndex}`,
    "-vf",
    chain.join(","),
    ...threadArgs(plan),
    "-f",
    "null",
    "-",
  ];
}
