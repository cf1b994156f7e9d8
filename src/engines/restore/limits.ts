/**
 * The thresholds and caps the restoration decisions (plan.ts) are made with, and what they are
 * told of this ffmpeg: named here so a change of policy is one reviewed line.
 */

/** Which ffmpeg filters this build has (see `hasFilter`); injected so decisions stay pure. */
export interface Capabilities {
  has(filter: string): boolean;
}

export const LIMITS = {
  /** Never upscale past UHD: long edge and short edge caps. */
  maxLongEdgePx: 3840,
  maxShortEdgePx: 2160,
  /** Share of decided idet frames that must be combed to call the video interlaced. */
  interlacedShare: 0.4,
  /**
   * Real interlacing has one field order throughout; fine detail in progressive video trips
   * idet both ways (testsrc2 reads ~60/40 TFF/BFF), so demand this much agreement.
   */
  parityAgreement: 0.8,
  /** Fewer decided idet frames than this and we trust the header instead. */
  minDecidedFrames: 8,
  /**
   * A stream that flags its field order (MPEG-2, DV, H.264 field coding) is deinterlaced at that
   * order unless idet finds this share of decided frames combed the other way: soft, noisy tape
   * fields with slow motion comb too little for idet (it read 5 of 6 such BFF clips progressive).
   */
  overruleHeaderShare: 0.4,
  /** Mean jitter over picture height above which we stabilise (0.8% ≈ 3 px at 360 lines). */
  shakeRatio: 0.008,
  /** A hum harmonic set must stand this far above its neighbourhood, and beat the other mains. */
  humDb: 10,
  humMarginDb: 3,
  /** Below this integrated loudness we would mostly amplify noise: leave levels alone. */
  quietestNormalisedLufs: -45,
  /**
   * Faded (tone.ts): the veil is the dark channel's 0.5th percentile (levels.ts, RGB 0–255), the
   * whites the bright channel's 99.5th. Chosen on the tuning set only (126 stills: its seven
   * photographs clean, lifted and lowered 8 levels, and faded with blacks 20–60 and contrast
   * 0.6–0.8; and its 3 s clips): a colourful picture is faded when its veil reaches fadeVeil and
   * its whites stay at or below fadeWhitesBelow — clean clips read veils up to 36 (storm lifted
   * 8, whites 224) and 26 (storm, whites 215), faded ones 30–58 with whites 163–211. A grey one
   * needs fadeVeilGrey: grey fog reads 25, lifted 8 levels 34. A colourful picture whose veil
   * reaches fadeVeilAlone is faded whatever its whites (clean colourful clips read at most 36).
   * Above fadeVeilMax the picture is
   * bright, not veiled (faded stills read at most 72). Mean luma PSNR of the 126 tuning stills:
   * 27.5 dB left as they are, 29.6 corrected by this rule (none of the clean ones touched).
   */
  fadeVeil: 30,
  fadeWhitesBelow: 222,
  fadeVeilAlone: 40,
  fadeVeilGrey: 48,
  fadeVeilMax: 72,
  /** Mean colour distance from grey (levels.ts `sat`) below which a picture is grey. */
  greySat: 3,
  /**
   * A faded picture is stretched so its dark channel lands on black and its bright one
   * fadeTargetRange above it (the tuning stills scored best at 240 of 220–250), by at most
   * maxLevelsGain (fades to 0.6 of their contrast need 1.67; 1.8 beat 1.5 on the stills).
   */
  fadeTargetRange: 240,
  maxLevelsGain: 1.8,
  /**
   * Where a grainy picture's levels were read from wide means (levels.ts), only this share of
   * the stretch is made (the veil partly off, the gain 1 + share × (gain − 1)); the colour keeps
   * the whole gain. Wide means lift a scene's small dark details (tape's blur and bleed lift them
   * further), so the veil they read is often more than the fade's. Chosen on the tuning set
   * only: 126 tuning stills as above (a frame of each bench reference), with grain σ 8 / 10
   * (8 frames, read wide), mean luma PSNR
   * of the 105 fades (tone step alone) at share 1 / 0.8 / 0.7 / 0.6 / 0.5: 25.28 / 27.54 /
   * 27.73 / 27.30 / 26.76, no clean still touched; the tuning tape clips' tone step alone (luma
   * PSNR at 120×90, grain averaged away) `boats tape-a` 28.13 → 28.89, `dune tape-b` 28.94 →
   * 34.01. The colour at 0.7 cost `boats tape-a` 0.66 dB of colour PSNR (Enhanced), none with
   * the whole gain. Pictures read from 4-px means keep the whole stretch (share 0.8 there:
   * tuning stills +1.15 dB but tuning fade clips −0.5 to −4.4 dB on three of four).
   */
  fadeWideShare: 0.7,
  /** Mean chroma saturation below which the picture is black-and-white (drop chroma noise). */
  monochromeSat: 2.5,
  /**
   * Colour of a faded picture gets its contrast's gain (taking a veil off scales every channel
   * alike), by at most maxSaturation: on the tuning set's three corrected colour fades (colour
   * ×0.6–0.8) the colour gain missed the one needed by 13 % on average at 1.4, 14 % at 1.3 and
   * 1.5, 22 % at 1.8 (a dim forest stretched ×1.8 lost 5 dB of colour PSNR).
   */
  maxSaturation: 1.4,
  /**
   * Dropout repair (dropouts.ts). Every level is a mean of |frame − median of the frames before,
   * this and after| along 16 pixels of a row, less the larger of the rows 4 lines above and
   * below (a top-hat, 8-bit codes), read on every tuning cell's 3 s clip (bench/quality,
   * 2026-11-29; interlaced cells after bwdif by frame and by field). Before that day the
   * median was tmedian's, which set each frame against itself and the two after it, and the
   * 16-pixel mean lost everything under 16 codes to a range conversion: the earlier 100 was on
   * that scale.
   *
   * A segment is a dropout when it reads above dropoutTopHat and the frames either side read no
   * more than dropoutNeighbourTopHat within 4 lines of it. Tuning cells without a streak peak at
   * 59 where the neighbours are free (`cups interlaced-bff` by field; `boats` 51–53 in every
   * damage, its rigging) and at 78 with the neighbours' test off; the tuning streaks' brightest
   * segments read 81–180. The streaks' neighbours read 24 at most (one crossing the cups' moving
   * rim: 82, mended by the tests below).
   */
  dropoutTopHat: 70,
  dropoutNeighbourTopHat: 60,
  /**
   * A white streak over a bright picture reads little, so a faint one is found by its shape: a
   * run of 2·dropoutFaintRun + 1 segments (80 px) each above dropoutFaintRunTopHat on the bright
   * side alone (above the median, less the mean below it within dropoutOppositeLines lines ×
   * dropoutOppositeWeight) and above dropoutFaintRatio × what the frames either side read there,
   * with one segment above dropoutFaintTopHat. Tuning cells without a streak peak at 18 on that
   * measure (`boats blocking-1200`: an I-frame's block row; `boats slip-2` 16), so 22 sits 4
   * over; the tuning streaks' rows read 80 and more. Measured and not kept: both sides (a thin
   * dark line moving a line a frame reads as a dark streak: `fog` 22), runs of 3 (`boats
   * lowres-1.5` 27–29), an opposite side 2 lines away or weighed twice (no lower on the clean
   * cells, 4–8 lower on a faint test streak), neighbours 3× or 4× (no lower either).
   */
  dropoutFaintTopHat: 22,
  dropoutFaintRunTopHat: 10,
  dropoutFaintRatio: 2,
  dropoutFaintRun: 2,
  dropoutOppositeLines: 1,
  dropoutOppositeWeight: 1,
  /**
   * From a dropout the repair follows its row through segments above dropoutExtendTopHat: on the
   * tuning cells 0.08 % of the segments off a streak read above 12 (at most 0.64 % in a cell,
   * `boats slip-2`), and 99.0 % of the streaks' segments do. A faint run's segments need only
   * dropoutFaintRunTopHat, 10 (0.13 % and 99.5 %), as the rest of the faint test is stricter.
   */
  dropoutExtendTopHat: 12,
  /**
   * Deflicker when consecutive frames' brightness differs by this much (8-bit codes, median over
   * the probe's frame pairs, where the picture lines up): clean and damaged tuning clips without
   * flicker read 0.00–0.25 (a dark forest's coding noise at the top).
   */
  flickerCodes: 1,
  /**
   * Studio Max sharpens when the sharpest 0.5 % of edges are blurred by σ ≥ sharpenBlur px
   * (blur.ts; tuning clips: clean 0.25–0.54, blurred or taped soft 0.71–0.93: the threshold is
   * half way), with unsharp's sharpenSize matrix at sharpenAmount: on the soft tuning clips 5 px
   * at 1.0 gained 1.1–3.6 dB of luma PSNR (0.6 gained 0.9–2.5; 7 px at 1.0 was within ±0.5 of
   * it), on clean clips it cost 3–7 dB.
   */
  sharpenBlur: 0.62,
  /**
   * Studio Max also sharpens a picture enlarged from a coarser grid (grid.ts), when the best
   * alignment of a 2× or 1.5× grid leaves at most this share of the other alignments' residual
   * on the picture's most detailed places. Tuning clips (3 s, Studio Max's probe, 2026-12-01):
   * `boats lowres-1.5` 0.18 (its sharpest edges read 0.46: sharp), `blinds lowres-2` 0.43 (too
   * few strong edges to read them); every cell at its own resolution 0.76–0.98 (the lowest `dune
   * grain-10-x3`, whose 3-px grain the bench makes on a coarser grid, then `storm` 0.83), except
   * `dune tape-b` 0.36 (its 2-px grain is made on a 2× grid; it reads soft, σ 0.71, and is
   * sharpened either way). 0.55 sits near the geometric mean of 0.43 and 0.76. Held out, not used
   * to choose: `moss lowres-2` 0.05 (sharp by its edges, 0.47), `planks lowres-1.5` 0.48 (soft by
   * its edges too), every other cell 0.71 (`grey blur-1.8`, soft by its edges) and up, the
   * closest not read soft `grey blocking-800` 0.77 (its blocks keep it unsharpened anyway). A
   * held-out picture halved and enlarged by bicubic, lanczos or nearest reads a 2× grid as well
   * (0.34–0.44 on the rows alone); 1.5× by bicubic or lanczos, or 352 → 720, does not (0.84–0.99).
   */
  upscaledGridContrast: 0.55,
  sharpenSize: 5,
  sharpenAmount: 1,
  /**
   * Studio Max enlarges a picture it did not denoise, deblock or sharpen with lanczos of this
   * many taps each side instead of 3: the wider kernel passes more of the source's finest detail.
   * Tuning cells at Studio Max (bench, 3 s, luma PSNR, 3 → 4 taps): clean `boats` 33.20 → 33.39,
   * `forest` 32.03 → 32.16, `fog` 36.91 → 37.07, `cups` 41.21 → 41.36, `dune` 42.50 → 42.56,
   * `storm` and `blinds` ±0.01; fades +0.00 to +0.09; low resolution −0.02; sharp bicubic (b 0,
   * c 1) instead lost 0.15–0.23 on the clean ones. Sharpened pictures keep 3 (`dune blur-1.3`
   * 35.31 → 35.24, `cups blur-0.9` colour 42.62 → 42.56 with 4), and so do denoised and deblocked
   * ones: a sharper kernel keeps what the filters left (as lanczos kept hqdn3d's colour grain).
   */
  studioMaxLanczosTaps: 4,
  /**
   * Enhanced's deblock before its upscale (ffmpeg `deblock`, weak, 8-px blocks): a step across a
   * block edge under deblockAlpha × 255 (5 codes) with each side flat within deblockBeta × 255 (2
   * codes) is evened out. H.264's own thresholds at QP 18 (alpha 5, beta 2), about where x264
   * puts its P frames at CRF 16 on SD MPEG-2 (B frames 21). Measured on the tuning set (engine's
   * chain by hand, luma PSNR after the encode): clean `storm` +0.05 dB, `boats blocking-1200`
   * and `forest blocking-2000` ±0.00; 8 / 3 codes cost boats 0.10 dB after the encode, 12 / 5
   * the same.
   */
  deblockAlpha: 0.02,
  deblockBeta: 0.008,
  /**
   * Enhanced takes pp7 before enlarging instead of the weak deblock (and Studio Max, since
   * 2026-11-30 at Enhanced's size and rate: blocks-plan.ts decideDeblock, sizeQuality) where the probe
   * reads blocks (blockiness.ts:
   * the flat places' step at the 8-px grid over their other steps, upper quartile of the frames,
   * Enhanced's probe) at ≥ blockyRatio with ≥ blockyFlatShare of the block borders flat. Tuning
   * set: MPEG-2 at 1.2 Mbit/s `boats` 3.27, `cups` 3.44, `dune` 3.49, `fog` 4.52; `forest
   * blocking-2000` 2.08; every clean, faded, soft, low-resolution, slipped, interlaced or dropout
   * cell 1.15–1.71 (`storm` 1.66, `fog fade-52-205` 1.71): 2.4 sits 1.4× above the one and
   * under the others. Grainy and taped cells read 1.39–5.04 with 2–19 % of the borders flat. The
   * flat share keeps pp7 to smooth pictures: on textured ones it cost (`boats blocking-1200`, 49 %
   * flat: −0.10 dB luma after Enhanced's encode; clean `blinds`, 58 %: −0.38 luma / −0.52 colour)
   * or gained little (`dune blocking-1200`, 44 %: +0.06), on flat ones it gained (`cups
   * blocking-1200`, 81 %: +0.32 / +0.40; clean `storm`, 99 %: +0.09 / +0.08; `fog
   * blocking-1200`, 79 %: ±0.00). So on the tuning set pp7 runs on `cups` and `fog` at 1.2 Mbit/s.
   * Held out (not used to choose): it runs on `ladybird blocking-800` (2.80, 78 %: +0.33 / +0.13
   * dB), `wood blocking-800` (2.45, 68 %: +0.08 / −0.02) and `lake fade-44-200` (2.86, 99 %:
   * +0.03 / −0.03).
   */
  blockyRatio: 2.4,
  blockyFlatShare: 0.6,
  /**
   * Studio Max does not sharpen a picture read soft where blocks are read (≥ blockyRatio) with
   * ≥ blockyFlatFloor of the block borders flat (plan.ts decideSharpen): a starved picture reads
   * soft, and the mask sharpens its blocks. Tuning, Studio Max luma PSNR with the mask forced on
   * the blocked cells (44–84 % flat): `boats blocking-1200` 28.16 → 26.45, `boats blocking-800`
   * 27.31 → 25.94, `dune blocking-1200` 35.31 → 32.68, `dune blocking-800` 33.74 → 31.77, `cups
   * blocking-1200` 39.17 → 34.30, `fog blocking-1200` 35.25 → 32.71. The floor sits between the
   * grainy and taped cells (2–19 % flat, some reading up to 5.04: `dune tape-b` 4.89 at 10 %,
   * which reads soft and keeps its sharpening) and the blocked ones (44 % and up).
   */
  blockyFlatFloor: 0.3,
  /**
   * Standard takes pp7 (at its own size) where it reads blocks (≥ blockyRatio) with ≥
   * blockyFlatShareStandard of the block borders flat, and below blockyFlatShare (a textured
   * blocked picture) Enhanced and Studio Max keep the picture at its size and do the same
   * (blocks-plan.ts sizeQuality, decideDeblock). Standard's encode
   * alone (x264's in-loop filter on the source's grid) left tuning `boats` and `dune` blocking
   * under the floor. Between the grainy and taped cells (2–19 % flat) and the blocked ones (44 %
   * and up), as blockyFlatFloor. Tuning (bench 2026-11-30), luma / colour PSNR before → after
   * (floor): Standard `boats blocking-1200` 28.17 / 38.93 → 28.20 / 39.06 (28.09 / 39.09), `boats
   * blocking-800` 27.28 / 38.51 → 27.33 / 38.64 (27.27 / 38.67), `dune blocking-1200` 35.26 /
   * 36.24 → 35.32 / 36.28 (35.33 / 36.27), `dune blocking-800` 33.68 / 34.82 → 33.74 / 34.87
   * (33.79 / 34.88), `cups blocking-1200` 38.96 / 42.70 → 39.03 / 42.75, `fog blocking-1200`
   * 35.24 → 35.21; Enhanced, weak deblock → `pp7-colour`: `boats blocking-1200` 28.20 / 39.00 →
   * 28.20 / 39.08, `boats blocking-800` 27.34 / 38.58 → 27.34 / 38.66, `dune blocking-1200`
   * 35.30 / 36.26 → 35.30 / 36.28, `dune blocking-800` 33.79 / 34.85 → 33.78 / 34.88 (the weak
   * deblock on the luma alone: 38.98 on boats). That enlarged `pp7-colour` left held-out `grey
   * blocking-1200` (59 % flat) and `planks blocking-1200` (54 %) 0.11 / 0.18 dB of luma under
   * Standard, and no variant of it gained on the tuning set's textured cells (docs/restore.md,
   * "Blocking: the ladder by construction"); kept at its size (as Standard), tuning Enhanced /
   * Studio Max luma / colour before → after (bench 2026-11-30 late, 3 s): `boats blocking-1200`
   * 28.20 / 39.08, 28.17 / 38.96 → 28.20 / 39.06; `boats blocking-800` 27.34 / 38.66, 27.32 /
   * 38.56 → 27.33 / 38.64; `dune blocking-1200` 35.29 / 36.28, 35.34 / 36.24 → 35.32 / 36.28;
   * `dune blocking-800` 33.78 / 34.88, 33.76 / 34.79 → 33.74 / 34.87.
   */
  blockyFlatShareStandard: 0.3,
  /**
   * An MPEG-1/2 source whose I frames' mean quantiser scale (quantiser.ts) reaches
   * starvedQuantiser is starved of bits, and Enhanced and Studio Max keep it at its size as
   * Standard does (blocks-plan.ts sizeQuality) unless it is read blocked and flat (pp7 before
   * the enlargement) or grainy (σ ≥ DENOISE.minLumaSigma: its quantiser may be the grain's).
   * Every tuning cell's 3 s clip (bench, 2026-12-01): clean, lifted, lowered, faded, soft,
   * low-resolution, slipped, interlaced and clean-dropout cells (MPEG-2 at 8–12 Mbit/s) 4.3–6.9
   * (`boats`, `forest interlaced-tff` the top), blocked ones (0.8–2 Mbit/s) 18.6 (`fog
   * blocking-1200`) to 48.6 (`boats blocking-800`), grainy and taped ones 4.6–15.1. Over every
   * frame instead of the I frames the gap was narrow (clean up to 9.19, blocked from 11.78), so
   * the I frames' reading was taken. The two blocked tuning cells read neither blocked nor flat,
   * `blinds blocking-800` (I frames 21.1, blockiness 1.63) and `forest blocking-2000` (22.6,
   * 2.08 at 20 % flat), were enlarged to the ladder's loss: Enhanced colour 43.13 against
   * Standard's 43.20, SSIM Y 0.7603 against 0.7633. 12 sits between 6.9 and 18.6 (1.7× the
   * one, 0.65× the other). Since only the I frames are decoded (`-skip_frame nokey`, a quarter
   * of the CPU) the same clips read clean 4.3–7.0, blocked 19.3–48.3, grainy and taped 4.7–15.7;
   * held out every plan as before (`wood blocking-1200` 12.3 → 13.0, `meadow` 20.3 → 21.0).
   */
  starvedQuantiser: 12,
  /**
   * pp7's constant quantiser (medium thresholding) on a blocked flat picture. Tuning, Enhanced
   * luma / colour PSNR after the encode against the weak deblock, `cups blocking-1200` 38.96 /
   * 42.51: pp7 qp 2 39.28 / 42.91; the weak deblock at 12 / 5 codes 39.00 / 42.54, `deblock`'s
   * strong filter at 12 / 5 39.00 / 42.53, weak at 12 / 2 or 20 / 2 38.98 / 42.54, none 39.13 /
   * 42.74.
   */
  deblockPp7Qp: 2,
  /**
   * fspp's quantiser and strength on Enhanced's colour planes where hqdn3d takes grain out of an
   * enlarged picture (blocks-plan.ts decideDeblock, `fspp-colour`). Tuning set (bench
   * 2026-12-03, 3 s, the 11 noise, tape and dropout cells, Enhanced), colour PSNR gained over the
   * weak deblock alone, in all (`storm grain-4`; `cups grain-10` SSIM Y): pp7 qp 1 +1.22 (+0.58),
   * qp 2 +2.98 (+1.13; −0.0010); fspp qp 1 at strength −8 +0.52 (+0.29), −4 +1.69 (+0.77;
   * −0.0001), 0 +2.62 (+1.03), qp 2 +4.03 (+0.85; −0.0022), 3 and 4 SSIM Y −0.0034 / −0.0040.
   * Chosen: the most colour with no cell losing over 0.05 dB of luma or 0.002 of SSIM Y and
   * Studio Max still over Enhanced (`storm grain-4`: 48.25; pp7 qp 2 and fspp qp 1 at 0 passed
   * it). fspp costs a fifth of pp7 (pp7 made grainy Enhanced 1.5× as slow, fspp 1.13×;
   * docs/restore.md "Enhanced's colour on grain").
   */
  grainColour: { qp: 1, strength: -4 },
  /** afftdn's output delay in ffmpeg 5.1: 25 ms (1,200 samples at 48 kHz), length kept. */
  afftdnDelaySec: 0.025,
  /**
   * x264 VBV caps by output lines (kbit/s), the way streaming services bound CRF: ≤ 576 lines,
   * ≤ 720, ≤ 1080, above. Studio Max spends studioMaxRateShare more.
   */
  maxrateK: [
    [576, 4000],
    [720, 5000],
    [1080, 8000],
    [Number.POSITIVE_INFINITY, 20000],
  ],
  studioMaxRateShare: 1.5,
  /**
   * x264's CRF at every quality, except where the plan takes grain out of the luma (then
   * DENOISE.crfDenoised, 18: denoise.ts): at 18, clean SD kept at SD (Standard) scored 0.05–0.47
   * dB of luma PSNR under the floor (doing nothing, delivered at 720 lines) on four of seven clean
   * tuning clips; at 16, 0.11–0.38 above it on the three worst (1.3–1.6× the bits).
   */
  crf: 16,
  /**
   * x264 chroma QP offset: SD kept at SD (Standard) lost 0.50 dB chroma PSNR and 0.004 SSIM to
   * the floor (doing nothing, delivered at 720 lines) on clean boats; at −4 it gained 0.93 dB
   * and 0.008 (3.7 Mbit/s either way, under the 4 Mbit/s cap).
   */
  chromaQpOffset: -4,
} as const;
