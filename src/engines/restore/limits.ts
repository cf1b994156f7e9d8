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
   * Faded (tape, film dye): the blacks are lifted to at least fadedBlack AND nothing reaches
   * fadedWhite. A foggy or muted scene is low-contrast on purpose but keeps its blacks (fog
   * photo: 34–172), so it is left alone. Faded pictures are stretched so their darkest part
   * lands on stretchBlack, towards targetWhite, never by more than maxLevelsGain.
   */
  fadedBlack: 40,
  fadedWhite: 225,
  stretchBlack: 20,
  targetWhite: 225,
  maxLevelsGain: 1.45,
  /** Mean chroma saturation below which the picture is black-and-white (drop chroma noise). */
  monochromeSat: 2.5,
  /** Colour of a faded picture is revived with its contrast, by at most maxSaturation. */
  maxSaturation: 1.3,
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
  ] as ReadonlyArray<readonly [number, number]>,
  studioMaxRateShare: 1.5,
  /** Progressive input at or below this rate is motion-interpolated in Studio Max. */
  interpolateBelowFps: 30.5,
  maxOutputFps: 60,
} as const;
