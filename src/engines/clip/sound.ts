/**
 * Synthesized ambient beds as an ffmpeg audio filtergraph.
 *
 * Every source is seeded (anoisesrc `seed`, the `random()` state in volume expressions, and
 * aevalsrc formulas whose constants come from the seed), so the same seed gives the same
 * samples. Layers are stereo (left and right use different noise seeds for width), mixed
 * without normalisation at gains tuned to land near −23 LUFS, then faded or loop-crossfaded.
 */
import { between, createRng, type SoundKind, seed32 } from "./words.js";

const SAMPLE_RATE = 48_000;
/** Loop clips render this much extra audio and crossfade it into the head. */
const LOOP_CROSSFADE_SEC = 0.5;

/** The sound a prompt asks for, as an ffmpeg filtergraph segment. */
export interface SoundPlan {
  kind: SoundKind;
  /** Filtergraph segment (no inputs) whose final output pad is `[aout]`. */
  graph: string;
}

type Noise = "white" | "pink" | "brown";

interface Ctx {
  rng: () => number;
  /** Seconds of audio to generate before trimming. */
  sec: number;
  segments: string[];
  layers: string[];
}

function num(value: number): string {
  return value.toFixed(4);
}

/** Envelope periods divide 5 s so a looped clip's swell repeats exactly. */
function period(rng: () => number, choices: readonly number[]): number {
  return 5 / (choices[Math.floor(rng() * choices.length)] ?? 1);
}

function label(ctx: Ctx, stem: string): string {
  return `${stem}${ctx.segments.length}`;
}

/** Stereo noise: two differently seeded mono sources joined as left and right. */
function stereoNoise(ctx: Ctx, color: Noise, amplitude: number, nbSamples = 1024): string {
  const out = label(ctx, "n");
  const src = (seed: number) =>
    `anoisesrc=color=${color}:seed=${seed}:amplitude=${num(amplitude)}:duration=${num(ctx.sec)}` +
    `:sample_rate=${SAMPLE_RATE}:nb_samples=${nbSamples}`;
  ctx.segments.push(
    `${src(seed32(ctx.rng))}[${out}l];${src(seed32(ctx.rng))}[${out}r];` +
      `[${out}l][${out}r]join=inputs=2:channel_layout=stereo[${out}]`,
  );
  return out;
}

/** Multiplies a stereo stream by an envelope formula of `t` (seconds). */
function envelope(ctx: Ctx, input: string, formula: string): string {
  const env = label(ctx, "e");
  const out = `${env}m`;
  ctx.segments.push(
    `aevalsrc=exprs='${formula}':channel_layout=stereo:sample_rate=${SAMPLE_RATE}` +
      `:duration=${num(ctx.sec)}[${env}];[${input}][${env}]amultiply[${out}]`,
  );
  return out;
}

/** Applies a filter chain to a stream and registers the result as a layer at a gain. */
function layer(ctx: Ctx, input: string, chain: string, gain: number): void {
  const out = label(ctx, "l");
  const filters = chain ? `${chain},` : "";
  ctx.segments.push(
    `[${input}]${filters}volume=${num(gain)},aformat=sample_fmts=fltp:channel_layouts=stereo[${out}]`,
  );
  ctx.layers.push(out);
}

/** A slow sine swell between `floor` and 1 with a seeded phase. */
function swell(ctx: Ctx, floor: number, choices: readonly number[], sharpness = 1): string {
  return swellAt(floor, period(ctx.rng, choices), ctx.rng(), sharpness);
}

/** A swell with a given period (s) and phase (cycles), for layers that must move together. */
function swellAt(floor: number, periodSec: number, phase: number, sharpness = 1): string {
  const wave = `(0.5-0.5*cos(2*PI*(t/${num(periodSec)}+${num(phase)})))`;
  const shaped = sharpness === 1 ? wave : `pow(${wave},${sharpness})`;
  return `${num(floor)}+${num(1 - floor)}*${shaped}`;
}

/**
 * Sparse clicks (fire crackle, rain drops): white noise whose short frames are switched on at
 * random. `random()` keeps its state in the expression's variable 0/1, seeded on frame 0.
 */
function crackle(ctx: Ctx, density: number, gain: number, band: [number, number]): void {
  const src = stereoNoise(ctx, "white", 1, 96);
  const seed = seed32(ctx.rng) % 1_000_000;
  const gate = `if(eq(n,0),st(0,${seed})+st(1,${seed + 7}));gt(random(0),${num(1 - density)})*(0.2+0.8*random(1))`;
  layer(
    ctx,
    src,
    `volume=eval=frame:volume='${gate}',highpass=f=${band[0]},lowpass=f=${band[1]}`,
    gain,
  );
}

/** Bird calls: a few seeded birds, each repeating a short frequency-swept chirp. */
function birds(ctx: Ctx, gain: number): void {
  const count = 2 + Math.floor(ctx.rng() * 2);
  const left: string[] = [];
  const right: string[] = [];
  for (let i = 0; i < count; i++) {
    const every = between(ctx.rng, 0.55, 1.5);
    const offset = between(ctx.rng, 0, every);
    const dur = between(ctx.rng, 0.05, 0.14);
    const f0 = between(ctx.rng, 2400, 4600);
    const sweep = between(ctx.rng, -1400, 2200);
    const pan = between(ctx.rng, 0.15, 0.85);
    // A second, slower sine skips some calls so the pattern does not sound mechanical.
    const skip = `gt(sin(2*PI*t/${num(every * between(ctx.rng, 2.5, 4.5))}+${num(ctx.rng() * 6.28)}),-0.35)`;
    const tau = `mod(t+${num(offset)},${num(every)})`;
    const chirp =
      `if(lt(${tau},${num(dur)}),${skip}*pow(sin(PI*${tau}/${num(dur)}),2)` +
      `*sin(2*PI*(${num(f0)}*${tau}+${num(sweep / (2 * dur))}*${tau}*${tau})),0)`;
    left.push(`${num(1 - pan)}*${chirp}`);
    right.push(`${num(pan)}*${chirp}`);
  }
  const out = label(ctx, "b");
  ctx.segments.push(
    `aevalsrc=exprs='${left.join("+")}|${right.join("+")}':channel_layout=stereo` +
      `:sample_rate=${SAMPLE_RATE}:duration=${num(ctx.sec)}[${out}]`,
  );
  layer(ctx, out, "", gain);
}

/** A soft pad: a seeded chord of sines, each partial slowly breathing, right channel detuned. */
function pad(ctx: Ctx, gain: number): void {
  const roots = [98, 110, 123.47, 130.81, 146.83];
  const root = roots[Math.floor(ctx.rng() * roots.length)] ?? 110;
  const partials = [
    [1, 1],
    [1.5, 0.6],
    [2, 0.45],
    [2.5, 0.3],
  ] as const;
  const channel = (detune: number) =>
    partials
      .map(([ratio, amp]) => {
        const lfo = `(0.6+0.4*sin(2*PI*t/${num(period(ctx.rng, [1, 2]))}+${num(ctx.rng() * 6.28)}))`;
        return `${num(amp)}*${lfo}*sin(2*PI*${num(root * ratio * detune)}*t)`;
      })
      .join("+");
  const out = label(ctx, "p");
  ctx.segments.push(
    `aevalsrc=exprs='${channel(1)}|${channel(1.003)}':channel_layout=stereo` +
      `:sample_rate=${SAMPLE_RATE}:duration=${num(ctx.sec)}[${out}]`,
  );
  layer(ctx, out, "lowpass=f=2000", gain);
}

/** Mains hum with its second harmonic (50 or 60 Hz by seed). */
function hum(ctx: Ctx, gain: number): void {
  const base = ctx.rng() < 0.5 ? 50 : 60;
  const out = label(ctx, "h");
  ctx.segments.push(
    `aevalsrc=exprs='sin(2*PI*${base}*t)+0.35*sin(4*PI*${base}*t)':channel_layout=stereo` +
      `:sample_rate=${SAMPLE_RATE}:duration=${num(ctx.sec)}[${out}]`,
  );
  layer(ctx, out, "", gain);
}

const RECIPES: Record<SoundKind, (ctx: Ctx) => void> = {
  rain: (ctx) => {
    const hiss = envelope(ctx, stereoNoise(ctx, "pink", 1), swell(ctx, 0.8, [2, 3]));
    layer(ctx, hiss, "highpass=f=400,lowpass=f=8000", 0.16);
    layer(ctx, stereoNoise(ctx, "brown", 1), "lowpass=f=250", 0.12);
    crackle(ctx, 0.25, 0.05, [1500, 5000]);
  },
  ocean: (ctx) => {
    const every = period(ctx.rng, [1, 2]);
    const phase = ctx.rng();
    const surf = envelope(ctx, stereoNoise(ctx, "pink", 1), swellAt(0.12, every, phase, 1.6));
    layer(ctx, surf, "lowpass=f=1400", 0.34);
    // The hiss of the wash peaks just after each wave breaks (a phase lag of a tenth of a cycle).
    const wash = envelope(ctx, stereoNoise(ctx, "white", 1), swellAt(0.05, every, phase - 0.1, 3));
    layer(ctx, wash, "highpass=f=2500,lowpass=f=9000", 0.04);
  },
  water: (ctx) => {
    const centre = Math.round(between(ctx.rng, 700, 1400));
    const flow = envelope(ctx, stereoNoise(ctx, "white", 1), swell(ctx, 0.75, [4, 5, 6]));
    layer(ctx, flow, `bandpass=f=${centre}:width_type=q:w=0.7`, 0.3);
    layer(ctx, stereoNoise(ctx, "pink", 1), "lowpass=f=3000", 0.1);
  },
  wind: (ctx) => {
    const low = Math.round(between(ctx.rng, 300, 600));
    const high = Math.round(between(ctx.rng, 900, 1400));
    const gusts = `(${swell(ctx, 0.25, [1, 2], 1.5)})*(${swell(ctx, 0.6, [3, 4])})`;
    const body = envelope(ctx, stereoNoise(ctx, "white", 1), gusts);
    layer(ctx, body, `bandpass=f=${low}:width_type=q:w=1.2`, 0.55);
    const whistle = envelope(ctx, stereoNoise(ctx, "white", 1), swell(ctx, 0.1, [1, 2], 2));
    layer(ctx, whistle, `bandpass=f=${high}:width_type=q:w=4`, 0.12);
  },
  city: (ctx) => {
    const traffic = envelope(ctx, stereoNoise(ctx, "brown", 1), swell(ctx, 0.55, [1, 2]));
    layer(ctx, traffic, "lowpass=f=700", 0.3);
    layer(ctx, stereoNoise(ctx, "pink", 1), "highpass=f=300,lowpass=f=3000", 0.03);
    hum(ctx, 0.02);
  },
  forest: (ctx) => {
    const leaves = envelope(ctx, stereoNoise(ctx, "pink", 1), swell(ctx, 0.5, [1, 2]));
    layer(ctx, leaves, "highpass=f=1500,lowpass=f=8000", 0.06);
    birds(ctx, 0.07);
  },
  fire: (ctx) => {
    const roar = envelope(ctx, stereoNoise(ctx, "brown", 1), swell(ctx, 0.65, [3, 4, 5]));
    layer(ctx, roar, "lowpass=f=450", 0.3);
    crackle(ctx, 0.06, 0.18, [1200, 7000]);
  },
  room: (ctx) => {
    layer(ctx, stereoNoise(ctx, "brown", 1), "lowpass=f=300", 0.08);
    pad(ctx, 0.018);
  },
};

/**
 * Gain after mixing, measured so each bed lands near −23 LUFS (EBU R128) over 5 s: present
 * under speech, never louder than it. Re-measure when a recipe changes.
 */
const MASTER_GAIN: Record<SoundKind, number> = {
  rain: 2.2,
  ocean: 2.3,
  water: 0.8,
  wind: 1.85,
  city: 1.55,
  forest: 4.2,
  fire: 1.5,
  room: 4.0,
};

/**
 * Fades for a one-shot clip; for a loop, the `LOOP_CROSSFADE_SEC` rendered past the end is
 * crossfaded (equal power) over the head, so sample 0 continues exactly where the last left.
 */
function finish(ctx: Ctx, kind: SoundKind, durationSec: number, loop: boolean): void {
  const mixed = ctx.layers.map((l) => `[${l}]`).join("");
  const total = Math.round(durationSec * SAMPLE_RATE);
  ctx.segments.push(
    `${mixed}amix=inputs=${ctx.layers.length}:normalize=0,volume=${num(MASTER_GAIN[kind])}[mix]`,
  );
  if (!loop) {
    const fadeOut = 0.8;
    ctx.segments.push(
      `[mix]atrim=end_sample=${total},afade=t=in:d=0.4,` +
        `afade=t=out:st=${num(durationSec - fadeOut)}:d=${fadeOut}[aout]`,
    );
    return;
  }
  const xf = Math.round(LOOP_CROSSFADE_SEC * SAMPLE_RATE);
  ctx.segments.push(
    "[mix]asplit=3[xh][xt][xb]",
    `[xh]atrim=end_sample=${xf},afade=t=in:nb_samples=${xf}:curve=qsin[xh2]`,
    `[xt]atrim=start_sample=${total}:end_sample=${total + xf},asetpts=PTS-STARTPTS,` +
      `afade=t=out:nb_samples=${xf}:curve=qsin[xt2]`,
    "[xh2][xt2]amix=inputs=2:normalize=0[xj]",
    `[xb]atrim=start_sample=${xf}:end_sample=${total},asetpts=PTS-STARTPTS[xb2]`,
    "[xj][xb2]concat=n=2:v=0:a=1[aout]",
  );
}

/** Builds the audio graph for a sound kind; all randomness comes from `seed`. */
export function planSound(
  kind: SoundKind,
  seed: number,
  durationSec: number,
  loop: boolean,
): SoundPlan {
  const ctx: Ctx = {
    rng: createRng(seed),
    sec: durationSec + (loop ? LOOP_CROSSFADE_SEC : 0),
    segments: [],
    layers: [],
  };
  RECIPES[kind](ctx);
  finish(ctx, kind, durationSec, loop);
  return { kind, graph: ctx.segments.join(";") };
}
