import { once } from "node:events";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImageFetchError, UnsafeUrlError } from "./safe-fetch.js";
import { fetchPublicToFile, type StreamFetchOptions } from "./safe-stream.js";

let server: Server;
let base = "";
let dir = "";
const BODY = Buffer.alloc(64 * 1024, 7);

function route(p: string, res: ServerResponse) {
  if (p === "/video.mp4") return res.writeHead(200, { "content-type": "video/mp4" }).end(BODY);
  if (p === "/octet")
    return res.writeHead(200, { "content-type": "application/octet-stream" }).end(BODY);
  if (p === "/page") return res.writeHead(200, { "content-type": "text/html" }).end("<html>");
  if (p === "/announced-big") {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(10 * 1024 ** 2) });
    return res.end();
  }
  if (p === "/chunked-big") {
    res.writeHead(200, { "content-type": "video/mp4" });
    for (let i = 0; i < 4; i++) res.write(BODY);
    return res.end();
  }
  if (p === "/stall") {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(BODY.length) });
    res.write(BODY.subarray(0, 100));
    return; // …and nothing more
  }
  if (p === "/cut") {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(BODY.length) });
    res.write(BODY.subarray(0, 100), () => res.destroy());
    return;
  }
  if (p === "/to-private") return res.writeHead(302, { location: "http://10.0.0.1/x" }).end();
  if (p === "/to-video") return res.writeHead(302, { location: "/video.mp4" }).end();
  res.writeHead(404).end();
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "kinora-stream-"));
  server = createServer((req, res) => route(new URL(req.url ?? "/", "http://x").pathname, res));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

const VIDEO = new Set(["video/mp4", "video/webm"]);
const options = (extra: Partial<StreamFetchOptions> = {}): StreamFetchOptions => ({
  maxBytes: 128 * 1024,
  timeoutMs: 5000,
  idleMs: 300,
  field: "video_url",
  noun: "video",
  accept: "video/*",
  acceptType: (type) => (VIDEO.has(type) ? type : null),
  typeHint: "a video",
  allowPrivateForTests: (a) => a === "127.0.0.1",
  ...extra,
});

const dest = (name: string) => path.join(dir, name);

async function refusal(url: string, extra: Partial<StreamFetchOptions> = {}, name = "x") {
  const err = await fetchPublicToFile(url, dest(name), options(extra)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImageFetchError);
  // A failed fetch leaves no file.
  await expect(stat(dest(name))).rejects.toThrow();
  return err as ImageFetchError;
}

describe("fetchPublicToFile", () => {
  it("streams the body to the file and reports progress, following a redirect", async () => {
    const seen: number[] = [];
    const got = await fetchPublicToFile(
      `${base}/to-video`,
      dest("ok"),
      options({ onProgress: (bytes) => seen.push(bytes) }),
    );
    expect(got).toEqual({
      bytes: BODY.length,
      contentType: "video/mp4",
      finalUrl: `${base}/video.mp4`,
    });
    expect(await readFile(dest("ok"))).toEqual(BODY);
    expect(seen.at(-1)).toBe(BODY.length);
  });

  it("lets acceptType keep a declared type for a generic binary response", async () => {
    const got = await fetchPublicToFile(
      `${base}/octet`,
      dest("octet"),
      options({ acceptType: (t) => (t === "application/octet-stream" ? "video/webm" : null) }),
    );
    expect(got.contentType).toBe("video/webm");
  });

  it("refuses a private address before connecting, and on a redirect", async () => {
    const guarded = { allowPrivateForTests: undefined };
    const direct = await refusal(`${base}/video.mp4`, guarded);
    expect(direct).toBeInstanceOf(UnsafeUrlError);
    expect(direct.message).toMatch(/video_url points at a loopback address/);
    const hop = await refusal(`${base}/to-private`);
    expect(hop).toBeInstanceOf(UnsafeUrlError);
    expect(hop.message).toMatch(/private address \(10\.0\.0\.1\)/);
  });

  it("refuses a type that is not accepted without reading the body", async () => {
    const err = await refusal(`${base}/page`);
    expect(err.code).toBe("bad_type");
    expect(err.message).toBe(
      "video_url served text/html, not a video; give a URL that serves the video itself.",
    );
  });

  it("refuses more than maxBytes, announced or streamed", async () => {
    expect((await refusal(`${base}/announced-big`)).message).toBe(
      "video_url serves more than 1 MB; give a smaller video.",
    );
    expect((await refusal(`${base}/chunked-big`)).code).toBe("too_large");
  });

  it("gives up on a server that stops sending", async () => {
    const started = Date.now();
    const err = await refusal(`${base}/stall`);
    expect(err.code).toBe("timeout");
    expect(err.message).toMatch(/video_url sent nothing for 0\.3 s/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("fails a body cut short of its Content-Length, and an HTTP error", async () => {
    expect((await refusal(`${base}/cut`)).message).toMatch(/closed the connection before/);
    expect((await refusal(`${base}/missing`)).message).toBe(
      "video_url answered HTTP 404; give a URL that serves the video itself.",
    );
  });

  it("keeps the whole deadline over a slow server", async () => {
    const err = await refusal(`${base}/stall`, { timeoutMs: 200, idleMs: 5000 });
    expect(err.code).toBe("timeout");
    expect(err.message).toMatch(/took longer than 0\.2 s/);
  });
});
