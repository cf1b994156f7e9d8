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
   * Dropout repair (dropouts.ts): a row segment is a dropout when its mean outlier against the
   * temporal median stands dropoutTopHat (8-bit codes) above the rows 4 lines above and below,
   * and the frames either side have no segment above dropoutNeighbourTopHat within 3 lines of
   * it. Measured on the tuning set's 3 s MPEG-2 clips: clean, grainy, interlaced, low-resolution
   * and slipped clips peaked at 87 (a sharp, grainy picture), fast pans of 4–6 px a frame at 66;
   * streaks of 1–3 lines read 130–193. Thin lines in motion read up to 104 before the
   * neighbours' test, and 60 is where it puts them out of reach. Read again on the larger
   * tuning set (2026-11-29, while tuning the row-following repair): clean `fog` peaks at 98 and
   * `cups` at 82, so the margin under 100 is small; no clean tuning clip crossed it.
   */
  dropoutTopHat: 100,
  dropoutNeighbourTopHat: 60,
  /**
   * From a dropout the repair follows its row through segments above dropoutExtendTopHat: where
   * a streak crosses a bright picture it reads 20–90 (cups), and the tuning clips' segments
   * without a streak read above 20 in at most 0.27 % (99th percentile ≤ 10; grain does not
   * raise it: grain-10 cups and grain-4 storm read as their clean clips). 10 and 15 mended the
   * tuning streaks no better (within 0.02 dB), 30 left 0.4 dB more on the clean cups (streak
   * frames against their neighbours, Standard).
   */
  dropoutExtendTopHat: 20,
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
  sharpenSize: 5,
  sharpenAmount: 1,
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
   * x264's CRF at every quality: at 18, clean SD kept at SD (Standard) scored 0.05–0.47 dB of
   * luma PSNR under the floor (doing nothing, delivered at 720 lines) on four of seven clean
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
