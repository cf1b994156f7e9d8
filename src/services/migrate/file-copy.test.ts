import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLocalDisk } from "../../storage/local-disk.js";
import { scanLocalStore } from "./file-copy.js";

const root = mkdtempSync(path.join(tmpdir(), "kinora-scan-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function put(key: string, text: string, contentType: string) {
  const disk = createLocalDisk(root);
  const chunks = (async function* () {
    yield Buffer.from(text);
  })();
  const outcome = await disk.write(key, chunks, text.length, contentType);
  expect(outcome.ok).toBe(true);
}

describe("scanning the local store", () => {
  it("finds every object with its size and type, and leaves temp and stray files behind", async () => {
    await put("restore/rj_a/input", "video-bytes", "video/mp4");
    await put("restore/rj_a/output", "restored", "video/mp4");
    await put("clips/clip_b/image", "jpeg", "image/jpeg");
    writeFileSync(path.join(root, "restore", "rj_a", ".input.abc123.part"), "half");
    // An object whose sidecar was lost still travels, as octet-stream.
    mkdirSync(path.join(root, "clips", "clip_c"), { recursive: true });
    writeFileSync(path.join(root, "clips", "clip_c", "output"), "mp4");
    // Not a storage key: never made by kinora, so not moved.
    writeFileSync(path.join(root, "clips", "clip_c", "notes~"), "x");

    const scan = await scanLocalStore(root);
    expect(
      scan.objects.map(({ key, sizeBytes, contentType }) => [key, sizeBytes, contentType]),
    ).toEqual([
      ["clips/clip_b/image", 4, "image/jpeg"],
      ["clips/clip_c/output", 3, null],
      ["restore/rj_a/input", 11, "video/mp4"],
      ["restore/rj_a/output", 8, "video/mp4"],
    ]);
    expect(scan.bytes).toBe(26);
    expect(scan.skipped).toEqual(["clips/clip_c/notes~", "restore/rj_a/.input.abc123.part"]);
    expect(scan.objects[0]?.path).toBe(path.join(root, "clips", "clip_b", "image"));
  });

  it("treats a store that was never written as empty", async () => {
    expect(await scanLocalStore(path.join(root, "never-made"))).toEqual({
      objects: [],
      bytes: 0,
      skipped: [],
    });
  });
});
