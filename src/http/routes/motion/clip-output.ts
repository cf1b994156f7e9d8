/**
 * PUT /files/clip-output/{token}: where a worker (in-process or remote) hands back a finished
 * clip. Not part of the public API (not in the OpenAPI document): the token, minted per
 * attempt by the clip queue, is the only credential. Under /files/ so the body is streamed,
 * not parsed as JSON; capped at CLIP_OUTPUT_MAX_BYTES.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { CLIP_OUTPUT_MAX_BYTES } from "../../../domain/clips/rules.js";
import type { ClipDeps } from "../../../services/clips/deps.js";
import { OUTPUT_ROUTE_PREFIX, readOutputToken } from "../../../services/clips/output-token.js";
import { clipOutputKey } from "../../../storage/keys.js";
import type { Router } from "../../router.js";

class TooLarge extends Error {}

function capped(max: number) {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > max ? new TooLarge() : null, chunk);
    },
  });
}

export function registerClipOutput(app: Router, deps: ClipDeps) {
  app.put(`${OUTPUT_ROUTE_PREFIX}:token`, async (c) => {
    const claims = readOutputToken(
      c.req.param("token"),
      deps.signingSecret,
      deps.clock().getTime(),
    );
    if (!claims) return c.json({ detail: "This output link is not valid or has expired." }, 401);
    const clip = await deps.db
      .selectFrom("clips")
      .select(["status", "attempts"])
      .where("id", "=", claims.clipId)
      .executeTakeFirst();
    if (clip?.status !== "processing" || clip.attempts !== claims.attempt) {
      return c.json(
        { detail: "This attempt no longer holds the clip; the output was not stored." },
        409,
      );
    }
    const body = c.req.raw.body;
    if (!body) return c.json({ detail: "Send the MP4 as the request body." }, 400);
    const dir = await mkdtemp(path.join(tmpdir(), "kinora-clip-out-"));
    const file = path.join(dir, "clip.mp4");
    try {
      await pipeline(
        Readable.fromWeb(body as WebReadableStream<Uint8Array>),
        capped(CLIP_OUTPUT_MAX_BYTES),
        createWriteStream(file),
      );
      await deps.storage.uploadFromFile(clipOutputKey(claims.clipId), file, "video/mp4");
      return c.json({ stored: true }, 200);
    } catch (err) {
      if (err instanceof TooLarge) {
        return c.json({ detail: `A clip may be at most ${CLIP_OUTPUT_MAX_BYTES} bytes.` }, 413);
      }
      throw err;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
