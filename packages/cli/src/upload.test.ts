/** The client's upload retries against a storage whose upload links are one-shot. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createKinora } from "@kinora/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiFailure } from "./failures.js";
import { uploadFile } from "./upload.js";

const dir = mkdtempSync(path.join(tmpdir(), "kinora-upload-"));
const file = path.join(dir, "in.bin");
let server: Server;
let url = "";
/** What the storage does with each PUT in turn: store and answer, store and lose the answer, refuse. */
let script: Array<"ok" | "lost" | "used"> = [];

beforeAll(async () => {
  writeFileSync(file, Buffer.alloc(64 * 1024, 7));
  server = createServer((req, res) => {
    const step = script.shift() ?? "used";
    req.resume();
    req.on("end", () => {
      if (step === "lost") res.socket?.destroy();
      else if (step === "ok") res.writeHead(200).end();
      else res.writeHead(409, { "content-type": "application/json" }).end('{"detail":"used"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/files/x`;
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const upload = () =>
  uploadFile(createKinora({ baseUrl: url, retryBaseMs: 10 }), {
    url,
    headers: {},
    file,
    sizeBytes: 64 * 1024,
    onRetry: () => {},
    maxAttempts: 3,
  });

describe("uploadFile", () => {
  it("counts a 409 on a retry as arrived: the first attempt was stored, its answer lost", async () => {
    script = ["lost", "used"];
    expect(await upload()).toEqual({ attempts: 2 });
  });

  it("keeps a 409 on the first attempt final", async () => {
    script = ["used"];
    await expect(upload()).rejects.toBeInstanceOf(ApiFailure);
  });
});
