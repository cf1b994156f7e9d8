/**
 * Test media for segmented restores: a pan over a real photograph with grain, a tone, and a
 * marker every second — a white box in one frame and a click at the same instant — so where
 * the picture and the sound meet can be read off the result; where the markers landed; a file
 * served over HTTP with range requests (a remote worker reads its segment that way).
 */
import { createReadStream, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";

const PHOTO = fileURLToPath(
  new URL("../restore-quality/fixtures/ladybird-1024.jpg", import.meta.url),
);

export interface MarkedClipOptions {
  seconds: number;
  width: number;
  height: number;
  /** Keyframe interval in frames (x264 -g). */
  gop: number;
  /** Made at 50p and interlaced to 25i, top field first. */
  interlaced?: boolean;
  /** Grain σ (ffmpeg's `noise` strength), so the plan denoises. */
  grain?: number;
}

/**
 * A 25 fps clip of `seconds` (x264, AAC 48 kHz stereo): a slow pan and drift over the
 * photograph, a white box in the top-left eighth in the frame at every whole second, and a
 * 3 ms click in a quiet 440 Hz tone at the same instants.
 */
export async function makeMarkedClip(out: string, o: MarkedClipOptions): Promise<string> {
  const rate = o.interlaced ? 50 : 25;
  const pan = [
    "scale=1024:-2",
    `crop=w=480:h=360:x='(iw-480)*t/${o.seconds}':y='(ih-360)*(0.5+0.3*sin(t))'`,
    `scale=${o.width}:${o.height}`,
    // One frame long: at 50p the box is in the field shown at the whole second.
    `drawbox=x=0:y=0:w=iw/8:h=ih/6:color=white:t=fill:enable='lt(mod(t\\,1)\\,${0.5 / rate})'`,
    ...(o.grain ? [`noise=alls=${o.grain}:allf=t`] : []),
    "format=yuv420p",
    ...(o.interlaced ? ["interlace=scan=tff"] : []),
  ].join(",");
  const tone = "0.1*sin(2*PI*440*t)+if(lt(mod(t\\,1)\\,0.003)\\,0.8\\,0)";
  const args = ["-y", "-loop", "1", "-framerate", String(rate), "-i", PHOTO];
  args.push("-f", "lavfi", "-i", `aevalsrc='${tone}':s=48000:c=stereo`, "-t", String(o.seconds));
  args.push("-filter_complex", `[0:v]${pan}[v]`, "-map", "[v]", "-map", "1:a");
  args.push("-c:v", "libx264", "-preset", "ultrafast", "-crf", "14", "-g", String(o.gop));
  if (o.interlaced) args.push("-flags", "+ilme+ildct", "-x264-params", "tff=1");
  args.push("-c:a", "aac", "-b:a", "192k", out);
  await runFfmpeg(args);
  return out;
}

/**
 * The times of the frames showing the marker box (its corner much brighter than in the frames
 * around: the picture's own brightest spots stay well under it).
 */
export async function markerFrameTimes(file: string): Promise<number[]> {
  const probe = "crop=iw/8:ih/6:0:0,signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-";
  const run = await runFfmpeg(["-i", file, "-map", "0:v:0", "-vf", probe, "-f", "null", "-"]);
  const frames: Array<{ t: number; y: number }> = [];
  for (const m of run.stdout.matchAll(/pts_time:([\d.]+)\s+lavfi\.signalstats\.YAVG=([\d.]+)/g)) {
    frames.push({ t: Number(m[1]), y: Number(m[2]) });
  }
  // The brightest frame of each second: interpolated or deinterlaced neighbours show less of it.
  const best = new Map<number, { t: number; y: number }>();
  for (const f of frames) {
    const second = Math.round(f.t);
    if (Math.abs(f.t - second) > 0.2 || f.y < 200) continue;
    if ((best.get(second)?.y ?? -1) < f.y) best.set(second, f);
  }
  return [...best.values()].map((f) => f.t).sort((a, b) => a - b);
}

/** Serves `file` on 127.0.0.1 with range requests, as object stores do; `close` when done. */
export async function serveWithRanges(file: string): Promise<{ url: string; server: Server }> {
  const size = statSync(file).size;
  const server = createServer((req, res) => {
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    if (!range) {
      res.writeHead(200, { "content-length": size, "accept-ranges": "bytes" });
      createReadStream(file).pipe(res);
      return;
    }
    const start = Number(range[1]);
    const end = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    if (start >= size) {
      res.writeHead(416, { "content-range": `bytes */${size}` }).end();
      return;
    }
    res.writeHead(206, {
      "content-length": end - start + 1,
      "content-range": `bytes ${start}-${end}/${size}`,
      "accept-ranges": "bytes",
    });
    createReadStream(file, { start, end }).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/input.mp4`, server };
}
