import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CogOutputError, pickOutputRef, saveOutput } from "./outputs.js";

let server: Server;
let base = "";
let dir = "";
const seenAuth: (string | undefined)[] = [];
const video = Buffer.from("fake mp4 bytes ".repeat(100));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cog-outputs-"));
  server = createServer((req, res) => {
    seenAuth.push(req.headers.authorization);
    if (req.url === "/out.mp4" || req.url === "/out.png") {
      res.writeHead(200, { "content-type": "video/mp4", "content-length": video.length });
      return res.end(video);
    }
    if (req.url === "/endless.mp4") {
      res.writeHead(200, { "content-type": "video/mp4" }); // no length: must be cut while streaming
      for (let i = 0; i < 50; i++) res.write(Buffer.alloc(1024));
      return res.end();
    }
    res.writeHead(404);
    res.end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

describe("pickOutputRef", () => {
  it("takes a string, the first video of an array, or an object's video field", () => {
    expect(pickOutputRef("https://x/a.mp4")).toBe("https://x/a.mp4");
    expect(pickOutputRef(["https://x/a.png", "https://x/b.mp4?sig=1", "https://x/c.mp4"])).toBe(
      "https://x/b.mp4?sig=1",
    );
    expect(pickOutputRef(["data:image/png;base64,AA", "data:video/mp4;base64,AA"])).toBe(
      "data:video/mp4;base64,AA",
    );
    expect(pickOutputRef(["https://x/a.bin"])).toBe("https://x/a.bin");
    expect(pickOutputRef({ video: "https://x/v.webm", motion: "pan" })).toBe("https://x/v.webm");
  });

  it.each([[null], [42], [[]], [{}], [[1, 2]]])("refuses an output without a file: %j", (out) => {
    expect(() => pickOutputRef(out)).toThrow(CogOutputError);
  });
});

describe("saveOutput", () => {
  it("saves a base64 data URL", async () => {
    const dest = join(dir, "data.mp4");
    const ref = `data:video/mp4;base64,${video.toString("base64")}`;
    const saved = await saveOutput(ref, dest, { maxBytes: 10_000 });
    expect(saved).toEqual({ sizeBytes: video.length, contentType: "video/mp4", source: "data" });
    expect((await readFile(dest)).equals(video)).toBe(true);
  });

  it("streams a URL output to disk", async () => {
    const dest = join(dir, "url.mp4");
    const saved = await saveOutput([`${base}/out.png`, `${base}/out.mp4`], dest, {
      maxBytes: 10_000,
    });
    expect(saved).toMatchObject({ sizeBytes: video.length, source: "url" });
    expect((await readFile(dest)).equals(video)).toBe(true);
  });

  it("adds headers only where headersFor says so", async () => {
    seenAuth.length = 0;
    await saveOutput(`${base}/out.mp4`, join(dir, "auth.mp4"), {
      maxBytes: 10_000,
      headersFor: (url): Record<string, string> =>
        url.origin === base ? { authorization: "Bearer t" } : {},
    });
    expect(seenAuth).toEqual(["Bearer t"]);
  });

  it.each([
    [
      "an oversized data URL",
      () => `data:video/mp4;base64,${Buffer.alloc(5000).toString("base64")}`,
    ],
    ["a URL whose declared length is too big", () => `${base}/out.mp4`],
    ["a URL that streams past the cap", () => `${base}/endless.mp4`],
  ])("refuses %s and leaves no file behind", async (_name, ref) => {
    const dest = join(dir, "big.mp4");
    await expect(saveOutput(ref(), dest, { maxBytes: 1000 })).rejects.toThrow(
      /larger than 1000 bytes/,
    );
    expect((await readdir(dir)).filter((f) => f.startsWith("big.mp4"))).toEqual([]);
  });

  it.each([
    ["file:///etc/passwd", /unsupported scheme/],
    ["ftp://example.com/a.mp4", /unsupported scheme/],
    ["not a url", /not a URL/],
  ])("refuses %s", async (ref, message) => {
    await expect(saveOutput(ref, join(dir, "x.mp4"), { maxBytes: 1000 })).rejects.toThrow(message);
  });

  it("reports a failed download", async () => {
    await expect(
      saveOutput(`${base}/missing.mp4`, join(dir, "m.mp4"), { maxBytes: 1000 }),
    ).rejects.toThrow(/HTTP 404/);
  });
});
