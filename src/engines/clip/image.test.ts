import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImageError, normaliseImage } from "./image.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kinora-image-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Raw RGB where the left half is red and the right half blue. */
function halves(width: number, height: number): Buffer {
  const px = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      if (x < width / 2) px[i] = 230;
      else px[i + 2] = 230;
    }
  }
  return px;
}

async function pixel(path: string, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(path).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i] ?? -1, data[i + 1] ?? -1, data[i + 2] ?? -1];
}

async function refusal(promise: Promise<unknown>): Promise<ImageError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImageError);
  return err as ImageError;
}

describe("normaliseImage", () => {
  it("applies EXIF orientation so a rotated phone photo comes out upright", async () => {
    // Stored 400×200 (red left, blue right) with orientation 6 = "rotate 90° clockwise to view":
    // viewed upright it is 200×400 with red on top.
    const input = join(dir, "rotated.jpg");
    await sharp(halves(400, 200), { raw: { width: 400, height: 200, channels: 3 } })
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toFile(input);
    const output = join(dir, "upright.png");
    const result = await normaliseImage(input, output);
    expect(result).toEqual({ width: 200, height: 400, format: "jpeg" });
    const meta = await sharp(output).metadata();
    expect(meta.format).toBe("png");
    expect(meta.orientation).toBeUndefined();
    const top = await pixel(output, 100, 20);
    const bottom = await pixel(output, 100, 380);
    expect(top[0]).toBeGreaterThan(180);
    expect(top[2]).toBeLessThan(60);
    expect(bottom[2]).toBeGreaterThan(180);
    expect(bottom[0]).toBeLessThan(60);
  });

  it("fits large images within 2560 px", async () => {
    const input = join(dir, "big.png");
    await sharp({ create: { width: 4000, height: 2000, channels: 3, background: "#336699" } })
      .png()
      .toFile(input);
    expect(await normaliseImage(input, join(dir, "big-out.png"))).toMatchObject({
      width: 2560,
      height: 1280,
    });
  });

  it("with `fill`, crops to the box's aspect in upright coordinates and shrinks to the box", async () => {
    // The rotated photo is 200×400 upright: a 2:1 box keeps a 200×100 band, red (top half of
    // the upright picture) because tall images keep the band a little above the middle.
    const input = join(dir, "rotated-fill.jpg");
    await sharp(halves(400, 200), { raw: { width: 400, height: 200, channels: 3 } })
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toFile(input);
    const output = join(dir, "filled.png");
    expect(await normaliseImage(input, output, { fill: { width: 100, height: 50 } })).toEqual({
      width: 100,
      height: 50,
      format: "jpeg",
    });
    expect((await pixel(output, 50, 25))[0]).toBeGreaterThan(180);
    // Smaller than the box: cropped but not enlarged.
    const small = await normaliseImage(input, join(dir, "filled-small.png"), {
      fill: { width: 1280, height: 640 },
    });
    expect(small).toMatchObject({ width: 200, height: 100 });
  });

  it("flattens transparency and writes 3-channel 8-bit sRGB", async () => {
    const input = join(dir, "alpha.png");
    await sharp({ create: { width: 64, height: 64, channels: 4, background: "#ff000080" } })
      .png()
      .toFile(input);
    const output = join(dir, "alpha-out.png");
    await normaliseImage(input, output);
    const meta = await sharp(output).metadata();
    expect(meta).toMatchObject({ channels: 3, depth: "uchar", space: "srgb", hasAlpha: false });
  });

  it.each(["gif", "webp"] as const)("refuses an animated %s", async (format) => {
    const input = join(dir, `anim.${format}`);
    const frames = Buffer.concat([halves(32, 32), Buffer.alloc(32 * 32 * 3, 90)]);
    await sharp(frames, { raw: { width: 32, height: 64, channels: 3, pageHeight: 32 } })
      [format]({ loop: 0 })
      .toFile(input);
    const err = await refusal(normaliseImage(input, join(dir, "anim-out.png")));
    expect(err.code).toBe("animated");
    expect(err.message).toMatch(/single still image/);
  });

  it("accepts a single-frame GIF", async () => {
    const input = join(dir, "still.gif");
    await sharp(halves(32, 32), { raw: { width: 32, height: 32, channels: 3 } })
      .gif()
      .toFile(input);
    expect(await normaliseImage(input, join(dir, "still-out.png"))).toMatchObject({
      width: 32,
      format: "gif",
    });
  });

  it("refuses a file that is not an image", async () => {
    const input = join(dir, "notes.jpg");
    await writeFile(input, "these are not the pixels you are looking for\n".repeat(20));
    const err = await refusal(normaliseImage(input, join(dir, "notes-out.png")));
    expect(err.code).toBe("not_image");
    expect(err.message).toMatch(/JPEG, PNG or WebP/);
  });

  it("refuses a truncated image as damaged", async () => {
    const full = await sharp(halves(256, 256), { raw: { width: 256, height: 256, channels: 3 } })
      .jpeg()
      .toBuffer();
    const input = join(dir, "cut.jpg");
    await writeFile(input, full.subarray(0, Math.floor(full.length / 2)));
    const err = await refusal(normaliseImage(input, join(dir, "cut-out.png")));
    expect(err.code).toBe("not_image");
  });

  it("refuses SVG as unsupported", async () => {
    const input = join(dir, "shape.svg");
    await writeFile(
      input,
      '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64"/></svg>',
    );
    const err = await refusal(normaliseImage(input, join(dir, "svg-out.png")));
    expect(err.code).toBe("unsupported");
  });

  it("refuses images over the pixel or byte limit before decoding them", async () => {
    const input = join(dir, "wide.png");
    await sharp({ create: { width: 3000, height: 2000, channels: 3, background: "#000" } })
      .png()
      .toFile(input);
    const pixels = await refusal(
      normaliseImage(input, join(dir, "wide-out.png"), { maxInputPixels: 5_000_000 }),
    );
    expect(pixels.code).toBe("too_large");
    expect(pixels.message).toMatch(/3000×2000 pixels; upload one of at most 5 megapixels/);
    const bytes = await refusal(
      normaliseImage(input, join(dir, "wide-out.png"), { maxInputBytes: 1000 }),
    );
    expect(bytes.code).toBe("too_large");
  });

  it("refuses images too small to make a picture from", async () => {
    const input = join(dir, "tiny.png");
    await sharp({ create: { width: 8, height: 8, channels: 3, background: "#fff" } })
      .png()
      .toFile(input);
    expect((await refusal(normaliseImage(input, join(dir, "tiny-out.png")))).code).toBe(
      "unsupported",
    );
  });
});
