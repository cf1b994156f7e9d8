import { describe, expect, it } from "vitest";
import { buildClipArgs } from "./args.js";
import { chooseMotion, chooseSound, cropToFill, planClip } from "./plan.js";
import { deriveSeed } from "./words.js";

const base = {
  prompt: "a lighthouse at dusk",
  size: "480p" as const,
  loop: false,
  seed: 42,
  imageWidth: 2400,
  imageHeight: 1600,
};

describe("planClip", () => {
  it("is deterministic: the same input gives the same plan and the same ffmpeg arguments", () => {
    const a = planClip(base);
    const b = planClip({ ...base });
    expect(b).toEqual(a);
    expect(buildClipArgs(b, "/tmp/f.png", "/tmp/o.mp4")).toEqual(
      buildClipArgs(a, "/tmp/f.png", "/tmp/o.mp4"),
    );
  });

  it("changes the camera path and the noise seeds with the seed", () => {
    const a = planClip({ ...base, prompt: "zoom in on the lighthouse, waves" });
    const b = planClip({ ...base, prompt: "zoom in on the lighthouse, waves", seed: 43 });
    expect(b.motion.kind).toBe(a.motion.kind);
    expect(b.motion.zoom).not.toBe(a.motion.zoom);
    expect(b.sound.graph).not.toBe(a.sound.graph);
  });

  it("outputs 5 s at 25 fps in the requested size", () => {
    expect(planClip(base)).toMatchObject({ width: 854, height: 480, fps: 25, frames: 125 });
    expect(planClip({ ...base, size: "720p" })).toMatchObject({ width: 1280, height: 720 });
    expect(planClip({ ...base, size: "720p" }).work).toEqual({ width: 1920, height: 1080 });
  });

  it("refuses a size it does not know and a seed that is not a number", () => {
    expect(() => planClip({ ...base, size: "4k" as "480p" })).toThrow(RangeError);
    expect(() => planClip({ ...base, seed: Number.NaN })).toThrow(RangeError);
  });
});

describe("motion from prompt words", () => {
  it.each([
    ["Slow zoom in on her face", "zoom_in"],
    ["push in on the cabin", "zoom_in"],
    ["camera pulls back to reveal the valley", "zoom_out"],
    ["zoom out from the city", "zoom_out"],
    ["pan left across the skyline", "pan_left"],
    ["Panning right over the beach", "pan_right"],
    ["tilt up to the mountain peak", "tilt_up"],
    ["tilt down to the river", "tilt_down"],
    ["orbit around the statue", "drift"],
    ["dreamy, drifting through fog", "drift"],
    ["static shot of a bowl of fruit", "still"],
  ])("%s → %s", (prompt, kind) => {
    expect(chooseMotion(prompt, 1)).toBe(kind);
  });

  it("takes the earliest mention when a prompt names two moves", () => {
    expect(chooseMotion("pan left, then zoom in", 1)).toBe("pan_left");
    expect(chooseMotion("zoom in, then pan left", 1)).toBe("zoom_in");
  });

  it("does not match inside other words", () => {
    // "panorama", "zoomed-out" style compounds and "sunrise" must not pick a move by accident.
    const seedPick = chooseMotion("a cat", 7);
    expect(chooseMotion("a panorama at sunrise", 7)).toBe(seedPick);
  });

  it("picks a default by seed when no move is named, and not always the same one", () => {
    const picks = new Set(Array.from({ length: 40 }, (_, seed) => chooseMotion("a cat", seed)));
    expect(picks.size).toBeGreaterThan(2);
    expect(picks.has("still")).toBe(false);
    expect(chooseMotion("a cat", 5)).toBe(chooseMotion("a cat", 5));
  });
});

describe("sound from prompt words", () => {
  it.each([
    ["rain on a window", "rain"],
    ["waves crashing on the beach", "ocean"],
    ["a waterfall in the hills", "water"],
    ["windy mountain ridge", "wind"],
    ["busy city street with traffic", "city"],
    ["birds in a spring forest", "forest"],
    ["a campfire under the stars", "fire"],
    ["portrait of my grandmother", "room"],
  ])("%s → %s", (prompt, kind) => {
    expect(chooseSound(prompt)).toBe(kind);
  });

  it("takes the earliest mention", () => {
    expect(chooseSound("city in the rain")).toBe("city");
    expect(chooseSound("rain over the city")).toBe("rain");
  });
});

describe("loop paths", () => {
  it("use a closed cosine path over exactly `frames` steps, so frame N would equal frame 0", () => {
    const plan = planClip({ ...base, prompt: "zoom in", loop: true });
    expect(plan.motion.zoom).toContain("cos(2*PI*on/125)");
    const orbit = planClip({ ...base, prompt: "orbit", loop: true });
    expect(orbit.motion.x).toContain("on/125");
    expect(orbit.motion.x).toMatch(/6\.28319\*on\/125/);
  });

  it("crossfade the audio tail into the head instead of fading to silence", () => {
    const loop = planClip({ ...base, loop: true }).sound.graph;
    const once = planClip(base).sound.graph;
    expect(loop).toContain("curve=qsin");
    expect(loop).not.toContain("afade=t=out:st=");
    expect(once).toContain("afade=t=out:st=4.2000");
  });
});

describe("cropToFill", () => {
  it("keeps the centre of a wide image and the upper middle of a tall one", () => {
    expect(cropToFill(3000, 1000, 16 / 9)).toEqual({ x: 611, y: 0, width: 1778, height: 1000 });
    const tall = cropToFill(900, 1600, 16 / 9);
    expect(tall.width).toBe(900);
    expect(tall.height).toBe(506);
    expect(tall.y).toBe(Math.floor((1600 - 506) * 0.4));
  });
});

describe("deriveSeed", () => {
  it("keeps seeds beyond 32 bits apart and gives independent streams", () => {
    expect(deriveSeed(1, 1)).not.toBe(deriveSeed(1 + 2 ** 32, 1));
    expect(deriveSeed(-1, 1)).not.toBe(deriveSeed(2 ** 32 - 1, 1));
    expect(deriveSeed(9, 1)).not.toBe(deriveSeed(9, 2));
  });
});
