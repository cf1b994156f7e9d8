/**
 * The exact ffmpeg command line for a plan. Kept separate from the engine so a benchmark can run
 * bare ffmpeg with the same filter graph and compare.
 */
import type { ClipPlan } from "./plan.js";

/** How the clip's ffmpeg arguments are built (threads, for reproducible bytes). */
export interface ClipArgsOptions {
  /**
   * x264 threads. Pinned (never "auto") because x264's output depends on its thread count: a
   * fixed number keeps a seed's bytes the same on machines with different core counts.
   */
  threads?: number;
}

export const DEFAULT_X264_THREADS = 2;

/** Video chain: crop-to-fill, scale to the working size, camera move, BT.709 4:2:0. */
export function videoGraph(plan: ClipPlan): string {
  const { crop, work, motion } = plan;
  return [
    `[0:v]crop=${crop.width}:${crop.height}:${crop.x}:${crop.y}`,
    // Convert to BT.709 once, on the still. 4:4:4 because zoompan snaps the view to whole
    // chroma samples: in 4:2:0 a pan moves in 2-pixel steps and visibly judders.
    `scale=${work.width}:${work.height}:flags=lanczos+accurate_rnd:out_color_matrix=bt709:out_range=tv`,
    "format=yuv444p",
    `zoompan=z='${motion.zoom}':x='${motion.x}':y='${motion.y}'` +
      `:d=${plan.frames}:s=${plan.width}x${plan.height}:fps=${plan.fps}`,
    "format=yuv420p",
    "setsar=1[v]",
  ].join(",");
}

export function buildClipArgs(
  plan: ClipPlan,
  normalisedImagePath: string,
  outputPath: string,
  opts: ClipArgsOptions = {},
): string[] {
  const threads = opts.threads ?? DEFAULT_X264_THREADS;
  return [
    ["-v", "error", "-nostats", "-progress", "pipe:2", "-stats_period", "0.25"],
    // One still frame, read literally (no "%d" sequence patterns in the path); zoompan then
    // generates every output frame from it.
    ["-f", "image2", "-pattern_type", "none", "-i", `file:${normalisedImagePath}`],
    ["-filter_complex", `${videoGraph(plan)};${plan.sound.graph}`],
    ["-map", "[v]", "-map", "[aout]", "-frames:v", String(plan.frames)],
    ["-c:v", "libx264", "-preset", "veryfast", "-crf", String(plan.crf), "-profile:v", "high"],
    ["-threads", String(threads), "-pix_fmt", "yuv420p"],
    ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"],
    ["-color_range", "tv"],
    ["-c:a", "aac", "-b:a", `${plan.audioBitrateK}k`, "-ar", "48000", "-ac", "2"],
    // No creation times, encoder versions or copied tags: same inputs, same bytes.
    ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact"],
    ["-map_metadata", "-1", "-map_chapters", "-1"],
    ["-movflags", "+faststart", "-f", "mp4", "-y", `file:${outputPath}`],
  ].flat();
}
