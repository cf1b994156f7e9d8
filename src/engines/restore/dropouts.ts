/**
 * Tape dropouts: where the tape lost its oxide the head reads nothing for a moment, and the deck
 * draws a bright (or dark) streak across a few lines of one field. The frames before and after
 * hold the picture the streak hides, so the repair is temporal: a pixel is an outlier when it
 * lies outside both neighbours (|frame − median of the previous, this and the next frame|), a
 * dropout is a thin horizontal run of outliers, and there the mean of the frames before and after
 * takes the frame's place.
 *
 * Motion makes outliers too (a moving edge is outside its neighbours for a frame), but in blobs
 * as tall as they are wide; a dropout is a line, in one frame. So the outliers are averaged along
 * 16 pixels of each row, a row segment that stands out of the rows 4 lines above and below it
 * (a vertical top-hat) is a dropout candidate, and it is a dropout unless the frame before or
 * after has a candidate within 3 lines of it (a thin line moving, such as a rim or a wire).
 * A streak reads as much as the picture under it is darker than the streak, so where it crosses
 * something bright it fades below the threshold; from a dropout the repair follows its row
 * sideways as long as the segments still stand out a little (hysteresis, as edge finders do).
 * Everything runs in ffmpeg on every frame (a dropout lasts one frame: no sampled analysis
 * could find them all), and a frame without one passes through unchanged, bit for bit.
 */
import { type Capabilities, LIMITS } from "./limits.js";

/** What the repair needs from the plan: the frames' size where it runs, and its threshold. */
export interface DropoutRepair {
  width: number;
  height: number;
  /** Top-hat level (8-bit codes of mean outlier) above which a row segment is a dropout. */
  threshold: number;
}

/**
 * How many 16-pixel segments the repair follows a dropout sideways (256 px): on the tuning
 * set's streaked clips the faint stretches of a streak ran up to 13 segments.
 */
const EXTEND_SEGMENTS = 16;

const FILTERS = [
  "tmedian",
  "maskedmerge",
  "mergeplanes",
  "extractplanes",
  "blend",
  "dilation",
  "tpad",
];

/**
 * The repair, for frames of `width` × `height` after deinterlacing (yuv420p), or null when this
 * ffmpeg lacks a filter it needs or the size is odd (4:2:0 planes would not line up).
 */
export function decideDropouts(
  width: number,
  height: number,
  caps: Capabilities,
  notes: string[],
): DropoutRepair | null {
  if (!FILTERS.every((f) => caps.has(f))) {
    notes.push("dropouts: this ffmpeg lacks a filter the repair needs; not repaired");
    return null;
  }
  if (width % 2 || height % 2 || width < 32 || height < 16) return null;
  notes.push("dropouts: lines brighter or darker than the frames either side are repaired");
  return { width, height, threshold: LIMITS.dropoutTopHat };
}

/**
 * Hysteresis along the rows: the dropouts found (do_g0) grow one segment left and right at a
 * time, EXTEND_SEGMENTS times, into segments whose top-hat is above LIMITS.dropoutExtendTopHat.
 * The neighbours' test is not asked again: it keeps a moving line from starting a repair, and
 * a dropout that crosses one hides it in its own frame anyway.
 */
function followRows(): string[] {
  const n = EXTEND_SEGMENTS;
  const copies = Array.from({ length: n }, (_, i) => `[do_w${i}]`).join("");
  const out = [
    `[do_tw]lut=y='if(gt(val,${LIMITS.dropoutExtendTopHat}),255,0)',split=${n}${copies}`,
  ];
  for (let i = 0; i < n; i++) {
    // coordinates=24: the left and right neighbours only, so a dropout grows along its row.
    out.push(`[do_g${i}]dilation=coordinates=24[do_x${i}]`);
    out.push(`[do_x${i}][do_w${i}]blend=all_mode=darken[do_g${i + 1}]`);
  }
  return out;
}

/**
 * The filter (one chain element with its own labelled branches) that repairs dropouts: under a
 * mask of thin horizontal runs of outliers, the frame gives way to the mean of the frames before
 * and after it. (On the tuning set's streaked clips the mean left the streak frames 2.7 dB
 * below their neighbours, the median of the three frames 3.2, a fill from the lines 3–4 above
 * and below 3.4–4.6, the median of those three 2.8; wider masks, ±4 lines or a median over five
 * frames, 3.6–4.7: the fill's error on a moving picture, not what the mask misses, is most of
 * what is left.)
 */
export function dropoutRepairFilter(d: DropoutRepair): string {
  const { width: w, height: h } = d;
  const vertical = ",dilation=coordinates=66".repeat(3);
  return [
    "split=4[do_c][do_d][do_m0][do_f]",
    "[do_m0]tmedian=radius=1,extractplanes=y[do_my]",
    "[do_d]extractplanes=y[do_cy]",
    // Outliers, averaged along 16 pixels of each row.
    "[do_cy][do_my]blend=all_mode=difference,scale=iw/16:ih:flags=area,split=3[do_h][do_a][do_b]",
    // The row 4 lines above and the row 4 below, and the larger of the two: a streak of up to
    // 3 lines stands out of both, a moving edge or blob does not.
    "[do_a]crop=iw:ih-4:0:4,pad=iw:ih+4:0:0[do_up]",
    "[do_b]crop=iw:ih-4:0:0,pad=iw:ih+4:0:4[do_dn]",
    "[do_up][do_dn]blend=all_mode=lighten[do_ref]",
    "[do_h][do_ref]blend=all_mode=subtract,split=4[do_t][do_ta][do_tb][do_tw]",
    // The same measure on the frames before and after: a thin line that moves (a rim, a wire)
    // stands out near there too, a dropout only in its own frame.
    "[do_ta]tpad=start=1:start_mode=clone[do_tp]",
    "[do_tb]trim=start_frame=1,setpts=PTS-1/FRAME_RATE/TB,tpad=stop=1:stop_mode=clone[do_tn]",
    `[do_tp][do_tn]blend=all_mode=lighten:shortest=1${vertical},dilation,` +
      `lut=y='if(gt(val,${LIMITS.dropoutNeighbourTopHat}),0,255)'[do_free]`,
    `[do_t][do_free]blend=all_mode=darken:shortest=1,lut=y='if(gt(val,${d.threshold}),255,0)'[do_g0]`,
    ...followRows(),
    `[do_g${EXTEND_SEGMENTS}]dilation,scale=${w}:${h}:flags=neighbor,split[do_ky][do_kc]`,
    "[do_kc]scale=iw/2:ih/2:flags=neighbor,split[do_ku][do_kv]",
    "[do_ky][do_ku][do_kv]mergeplanes=0x001020:yuv420p[do_k]",
    // The frames before and after, lined up with this one (the ends repeat their neighbour).
    "[do_f]split[do_fa][do_fb]",
    "[do_fa]tpad=start=1:start_mode=clone[do_prev]",
    "[do_fb]trim=start_frame=1,setpts=PTS-1/FRAME_RATE/TB,tpad=stop=1:stop_mode=clone[do_next]",
    "[do_prev][do_next]blend=all_mode=average:shortest=1[do_fill]",
    "[do_c][do_fill][do_k]maskedmerge",
  ].join(";");
}
