/**
 * Camera paths as zoompan expressions.
 *
 * zoompan is fed one frame and generates every output frame from it, evaluating `z`, `x`, `y`
 * per output frame with `on` = output frame index. Positions are written as a fraction of the
 * room the current zoom leaves (`iw-iw/zoom`), so a path can never run off the picture and get
 * clamped into a visible stall.
 */
import { between, type MotionKind } from "./words.js";

/** The camera motion a prompt asks for, as zoompan expressions. */
export interface MotionPlan {
  kind: MotionKind;
  /** zoompan `z` expression (1 = whole working frame). */
  zoom: string;
  /** zoompan `x`/`y` expressions: top-left corner of the view in working-frame pixels. */
  x: string;
  y: string;
}

/** Fixed decimals keep the expressions, and so the output bytes, identical across runs. */
function num(value: number): string {
  return value.toFixed(5);
}

/**
 * Progress 0→1 over the clip. One-way paths use an eased start and stop that never fully
 * halts (a pure cosine ease looks frozen for the first half second of a 5 s clip). Loop paths
 * go out and back on a cosine, so the speed is zero at both ends and the wrap is seamless.
 */
function progress(frames: number, loop: boolean): string {
  if (loop) return `(0.5-0.5*cos(2*PI*on/${frames}))`;
  const t = `(on/${frames - 1})`;
  return `(0.4*${t}+0.6*(0.5-0.5*cos(PI*${t})))`;
}

/** Linear interpolation a→b by the progress expression p. */
function lerp(a: number, b: number, p: string): string {
  return `(${num(a)}+${num(b - a)}*${p})`;
}

function zoomPath(kind: "zoom_in" | "zoom_out" | "still", p: string, rng: () => number) {
  const near = kind === "still" ? between(rng, 1.03, 1.05) : between(rng, 1.25, 1.4);
  // Exponential zoom looks like a constant-speed dolly; a linear one seems to slow down.
  const zoom =
    kind === "zoom_out" ? `${num(near)}*pow(${num(1 / near)},${p})` : `pow(${num(near)},${p})`;
  // Zoom about an anchor near the centre: the anchor stays put on screen while the rest grows.
  const ax = between(rng, 0.35, 0.65);
  const ay = between(rng, 0.35, 0.6);
  return { zoom, x: `${num(ax)}*(iw-iw/zoom)`, y: `${num(ay)}*(ih-ih/zoom)` };
}

function panPath(kind: MotionKind, p: string, rng: () => number) {
  // Constant zoom: zoompan rounds its crop size to whole pixels, so a zoom that changes during
  // a pan adds a wobble to a move that is otherwise perfectly even.
  const zoom = num(between(rng, 1.2, 1.3));
  const across = lerp(0.06, 0.94, p);
  const back = lerp(0.94, 0.06, p);
  const fixed = num(between(rng, 0.3, 0.7));
  switch (kind) {
    case "pan_left":
      return { zoom, x: `${back}*(iw-iw/zoom)`, y: `${fixed}*(ih-ih/zoom)` };
    case "pan_right":
      return { zoom, x: `${across}*(iw-iw/zoom)`, y: `${fixed}*(ih-ih/zoom)` };
    case "tilt_up":
      return { zoom, x: `${fixed}*(iw-iw/zoom)`, y: `${back}*(ih-ih/zoom)` };
    default:
      return { zoom, x: `${fixed}*(iw-iw/zoom)`, y: `${across}*(ih-ih/zoom)` };
  }
}

/**
 * Drift/orbit: the view centre travels along an ellipse at a constant zoom. The loop variant
 * does a full turn at constant angular speed, a closed path whose end meets its start.
 */
function driftPath(frames: number, loop: boolean, p: string, rng: () => number) {
  const zoom = num(between(rng, 1.15, 1.22));
  const start = between(rng, 0, 2 * Math.PI);
  const direction = rng() < 0.5 ? -1 : 1;
  const sweep = loop ? 2 * Math.PI : between(rng, 0.55, 0.9) * Math.PI;
  // A full turn covers far more ground than a partial arc: a smaller ellipse keeps the loop's
  // speed near the other moves' (about 2 px per frame at 480p).
  const radius = num(loop ? 0.32 : 0.42);
  const angle = loop
    ? `(${num(start)}+${num(direction * sweep)}*on/${frames})`
    : `(${num(start)}+${num(direction * sweep)}*${p})`;
  return {
    zoom,
    x: `(0.5+${radius}*cos(${angle}))*(iw-iw/zoom)`,
    y: `(0.5+${radius}*sin(${angle}))*(ih-ih/zoom)`,
  };
}

/** Builds the zoompan expressions for one motion kind; draws only from `rng`. */
export function planMotion(
  kind: MotionKind,
  frames: number,
  loop: boolean,
  rng: () => number,
): MotionPlan {
  const p = progress(frames, loop);
  switch (kind) {
    case "zoom_in":
    case "zoom_out":
    case "still":
      return { kind, ...zoomPath(kind, p, rng) };
    case "drift":
      return { kind, ...driftPath(frames, loop, p, rng) };
    default:
      return { kind, ...panPath(kind, p, rng) };
  }
}
