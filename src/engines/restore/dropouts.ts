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
 * after has a candidate within 4 lines of it (a thin line moving, such as a rim or a wire).
 * A streak reads as much as the picture under it is darker than the streak, so where a white
 * one crosses something bright it reads little. Two things find it there: a faint test (a run
 * of segments that stand out on the bright side only, with nothing below the median beside
 * them, and far more than the frames either side do there) and, from any dropout found, the
 * repair follows its row sideways as long as the segments still stand out a little
 * (hysteresis, as edge finders do).
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
  "maskedmerge",
  "mergeplanes",
  "extractplanes",
  "blend",
  "dilation",
  "erosion",
  "tpad",
  "trim",
  "crop",
  "pad",
  "lut",
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
 * The frame's luma against the median of the frames before, this and after, taken from frames
 * lined up by hand (tmedian labels its median with the first of the three frames' times, so a
 * blend against it compares each frame with itself and the two after it: the plain frame
 * difference, which a moving edge fills). Out: [do_P] and [do_N], how far the frame lies
 * above and below the median, averaged along 16 pixels of each row (the range pinned, so a
 * limited-range frame is not stretched: scale would cut every mean under 16 to 0).
 */
function outliers(): string[] {
  const seg = "scale=iw/16:ih:flags=area:in_range=full:out_range=full";
  return [
    "[do_pm]extractplanes=y,split[do_p1][do_p2]",
    "[do_nm]extractplanes=y[do_n1]",
    "[do_d]extractplanes=y,split=4[do_c1][do_c2][do_c3][do_c4]",
    "[do_p1][do_c1]blend=all_mode=darken:shortest=1[do_lo]",
    "[do_p2][do_c2]blend=all_mode=lighten:shortest=1[do_hi]",
    "[do_hi][do_n1]blend=all_mode=darken:shortest=1[do_hn]",
    "[do_lo][do_hn]blend=all_mode=lighten:shortest=1,split[do_m1][do_m2]",
    // subtract: max(0, top − bottom).
    `[do_c3][do_m1]blend=all_mode=subtract:shortest=1,${seg}[do_P]`,
    `[do_m2][do_c4]blend=all_mode=subtract:shortest=1,${seg}[do_N]`,
  ];
}

/** A vertical top-hat of [in]: each row minus the larger of the rows 4 above and 4 below. */
function topHat(input: string, out: string): string[] {
  const p = `do_th${input}`;
  return [
    `[${input}]split=3[${p}h][${p}a][${p}b]`,
    `[${p}a]crop=iw:ih-4:0:4,pad=iw:ih+4:0:0[${p}u]`,
    `[${p}b]crop=iw:ih-4:0:0,pad=iw:ih+4:0:4[${p}d]`,
    `[${p}u][${p}d]blend=all_mode=lighten[${p}r]`,
    `[${p}h][${p}r]blend=all_mode=subtract[${out}]`,
  ];
}

/**
 * Faint seeds: how far a segment stands above the median (its top-hat on the bright side), less
 * the largest mean below the median within dropoutOppositeLines lines. A white dropout moves
 * its lines one way only; a thin line that moved by a line between frames leaves a bright row
 * beside a dark one and cancels out. Only white: a thin dark line that moves a line a frame
 * (a wire, a horizon under a zoom) is a dark outlier in one frame alone, as a dark dropout
 * would be, and on the tuning clips it reads as high as a faint white streak (`fog`: 22).
 */
function brightSide(): string[] {
  const near = ",dilation=coordinates=66".repeat(LIMITS.dropoutOppositeLines);
  const k = LIMITS.dropoutOppositeWeight;
  return [
    "[do_P]split[do_P1][do_P2]",
    "[do_N]split=2[do_N1][do_N2]",
    "[do_P1][do_N1]blend=all_mode=addition[do_h]",
    ...topHat("do_P2", "do_tP"),
    `[do_N2]null${near}[do_nN]`,
    `[do_tP][do_nN]blend=all_expr='max(0,A-${k}*B)',split[do_s][do_s2]`,
  ];
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
  const r = LIMITS.dropoutFaintRatio;
  const open =
    ",erosion=coordinates=24".repeat(LIMITS.dropoutFaintRun) +
    ",dilation=coordinates=24".repeat(LIMITS.dropoutFaintRun);
  return [
    "split=3[do_c][do_d][do_f]",
    // The frames before and after, lined up with this one (the ends repeat their neighbour).
    "[do_f]split[do_fa][do_fb]",
    "[do_fa]tpad=start=1:start_mode=clone,split[do_prev][do_pm]",
    "[do_fb]trim=start_frame=1,setpts=PTS-1/FRAME_RATE/TB,tpad=stop=1:stop_mode=clone,split[do_next][do_nm]",
    "[do_prev][do_next]blend=all_mode=average:shortest=1[do_fill]",
    ...outliers(),
    ...brightSide(),
    // The row 4 lines above and the row 4 below, and the larger of the two: a streak of up to
    // 3 lines stands out of both, a moving edge or blob does not.
    ...topHat("do_h", "do_t0"),
    "[do_t0]split=4[do_t][do_ta][do_tb][do_tw]",
    // The same measure on the frames before and after: a thin line that moves (a rim, a wire)
    // stands out near there too, a dropout only in its own frame.
    "[do_ta]tpad=start=1:start_mode=clone[do_tp]",
    "[do_tb]trim=start_frame=1,setpts=PTS-1/FRAME_RATE/TB,tpad=stop=1:stop_mode=clone[do_tn]",
    `[do_tp][do_tn]blend=all_mode=lighten:shortest=1${vertical},dilation,split[do_nb1][do_nb2]`,
    `[do_nb1]lut=y='if(gt(val,${LIMITS.dropoutNeighbourTopHat}),0,255)'[do_free]`,
    `[do_t][do_free]blend=all_mode=darken:shortest=1,lut=y='if(gt(val,${d.threshold}),255,0)'[do_strong]`,
    // Faint: a run of segments, each one-sided and well above what the frames either side show
    // there (eroded and dilated along the row: runs shorter than 2·dropoutFaintRun + 1 go), with
    // a segment in it that stands out more.
    `[do_s][do_nb2]blend=all_expr='if(gt(A,${LIMITS.dropoutFaintRunTopHat})*gt(A,${r}*B),255,0)':shortest=1${open}[do_run]`,
    `[do_s2]lut=y='if(gt(val,${LIMITS.dropoutFaintTopHat}),255,0)'[do_sf]`,
    "[do_run][do_sf]blend=all_mode=darken:shortest=1[do_faint]",
    "[do_strong][do_faint]blend=all_mode=lighten:shortest=1[do_g0]",
    ...followRows(),
    `[do_g${EXTEND_SEGMENTS}]dilation,scale=${w}:${h}:flags=neighbor,split[do_ky][do_kc]`,
    "[do_kc]scale=iw/2:ih/2:flags=neighbor,split[do_ku][do_kv]",
    "[do_ky][do_ku][do_kv]mergeplanes=0x001020:yuv420p[do_k]",
    "[do_c][do_fill][do_k]maskedmerge",
  ].join(";");
}
