import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putFileRange } from "./node-put.js";

const MIB = 1024 * 1024;

describe("putFileRange", () => {
  let server: Server;
  let base: string;
  const received: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), "kinora-node-put-"));
  const file = join(dir, "src.bin");
  const bytes = randomBytes(6 * MIB + 123);

  beforeAll(async () => {
    writeFileSync(file, bytes);
    server = createServer((req, res) => {
      const hash = createHash("sha256");
      req.on("data", (c: Buffer) => hash.update(c));
      req.on("end", () => {
        received.push(hash.digest("hex"));
        res.writeHead(200, { etag: '"x"' }).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

  it("sends each range exactly, the parts of one upload reusing the same read buffers", async () => {
    const buffers: Buffer[] = [];
    const first = await putFileRange(`${base}/1`, {}, file, 0, 5 * MIB, { buffers });
    expect(first.status).toBe(200);
    // The socket gave every buffer of the ring back: they wait for the next part.
    expect(buffers.length).toBe(4);
    const ring = new Set(buffers);
    const second = await putFileRange(`${base}/2`, {}, file, 5 * MIB, bytes.length, { buffers });
    expect(second.status).toBe(200);
    expect(new Set(buffers)).toEqual(ring); // the same four, none allocated for the second part
    expect(received.slice(-2)).toEqual([
      sha(bytes.subarray(0, 5 * MIB)),
      sha(bytes.subarray(5 * MIB)),
    ]);
  });
});
