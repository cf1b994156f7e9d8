/**
 * Turns a RestorePlan into ffmpeg filter chains and argument lists. Pure: the same plan always
 * gives the same arguments, so the benchmark can run bare ffmpeg with exactly our chain.
 */
import type { AudioPlan, Denoise, RestorePlan, VideoPlan } from "./types.js";

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

function denoiseFilter(d: Denoise): string {
  return `hqdn3d=${fmt(d.lumaSpatial)}:${fmt(d.chromaSpatial)}:${fmt(d.lumaTemporal)}:${fmt(d.chromaTemporal)}`;
}

/** Resize (and BT.601 → BT.709) without letting 4:2:0 chroma leak into luma. */
function scaleFilter(s: NonNullable<VideoPlan["scale"]>): string {
  if (s.filter === "zscale") {
    const matrix = s.convertMatrixTo709 ? ":matrixin=470bg:matrix=709" : "";
    return `zscale=w=${s.width}:h=${s.height}:filter=lanczos${matrix}`;
  }
  const matrix = s.convertMatrixTo709 ? ":in_color_matrix=bt601:out_color_matrix=bt709" : "";
  return `scale=${s.width}:${s.height}:flags=lanczos+accurate_rnd+full_chroma_int${matrix}`;
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

export function buildVideoFilter(plan: RestorePlan, transformsPath: string): string {
  const v = plan.video;
  const out = frontFilters(v);
  if (v.stabilise) {
    out.push(
      `vidstabtransform=input=${escapeFilterValue(transformsPath)}:smoothing=${v.stabilise.smoothing}:optzoom=1:interpol=bicubic`,
    );
  }
  if (v.deflicker) out.push("deflicker=size=5:mode=am");
  out.push(...v.denoise.map(denoiseFilter));
  const tone = toneFilter(v);
  if (tone) out.push(tone);
  if (v.interpolateFps !== null) {
    out.push(
      `minterpolate=fps=${fmt(v.interpolateFps)}:mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1`,
    );
  }
  if (v.crop) out.push(`crop=${v.crop.width}:${v.crop.height}:0:0`);
  if (v.scale) out.push(scaleFilter(v.scale), "setsar=1");
  out.push("format=yuv420p");
  return out.join(",");
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

function threadArgs(plan: RestorePlan): string[] {
  const t = plan.encode.threads;
  return t ? ["-threads", String(t), "-filter_threads", String(t)] : [];
}

/**
 * The exact ffmpeg argument list (for `runFfmpeg`, which adds -hide_banner -nostdin) that
 * restores `inputPath` to an MP4 at `outputPath`. When `plan.video.stabilise` is set, run
 * `buildStabiliseDetectArgs` first: it writes the transforms this pass reads.
 */
export function buildRestoreArgs(
  plan: RestorePlan,
  inputPath: string,
  outputPath: string,
): string[] {
  const args = ["-y", "-i", inputPath, "-map", `0:${plan.source.videoStreamIndex}`];
  if (plan.source.audio && plan.audio) args.push("-map", `0:${plan.source.audio.streamIndex}`);
  args.push("-vf", buildVideoFilter(plan, transformsPathFor(outputPath)));
  const e = plan.encode;
  args.push("-c:v", "libx264", "-preset", e.x264Preset, "-crf", String(e.crf));
  args.push("-maxrate", `${e.maxrateK}k`, "-bufsize", `${e.bufsizeK}k`);
  args.push("-profile:v", "high", "-pix_fmt", "yuv420p");
  if (plan.video.scale?.convertMatrixTo709) args.push("-colorspace", "bt709");
  if (plan.audio) {
    args.push("-af", buildAudioFilter(plan.audio), "-c:a", "aac");
    args.push("-b:a", `${plan.encode.audioBitrateK}k`, "-ac", String(plan.audio.channels));
    args.push("-ar", String(plan.audio.sampleRate));
  } else {
    args.push("-an");
  }
  // No subtitles/data, no chapters, no source metadata: phone clips carry GPS positions.
  args.push("-sn", "-dn", "-map_metadata", "-1", "-map_chapters", "-1");
  args.push(...threadArgs(plan), "-movflags", "+faststart", "-f", "mp4", outputPath);
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
