import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../test/restore/media.js";
import { ffmpegBinaries, mediaProcessEnv, runFfmpeg, runFfprobe, runProcess } from "./ffmpeg.js";

let dir: string;
let cleanup: () => Promise<void>;
const file = (name: string) => join(dir, name);

/** A stand-in ffprobe: a shell script that prints `says` or crashes the way a segfault does. */
async function fakeProbe(name: string, body: string): Promise<string> {
  await writeFile(file(name), `#!/bin/sh\n${body}\n`);
  await chmod(file(name), 0o755);
  return file(name);
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  // MPEG-TS carries service names in a DVB character set: its demuxer calls iconv on them.
  const video = ["-f", "lavfi", "-t", "1", "-i", "testsrc2=s=160x120:r=25"];
  await runFfmpeg(["-y", ...video, "-c:v", "libx264", "-preset", "ultrafast", file("in.ts")]);
}, 30_000);

afterAll(() => cleanup());

describe("runFfprobe", () => {
  it("reads MPEG-TS with the ffprobe it picked, without falling back", async () => {
    const bins = ffmpegBinaries();
    const fallback = await fakeProbe("fallback", "echo fallback; exit 0");
    const args = ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0"];
    const probe = await runFfprobe(
      [...args, file("in.ts")],
      {},
      { ...bins, ffprobeFallback: bins.ffprobeFallback && fallback },
    );
    expect(probe).toMatchObject({ code: 0, signal: null });
    expect(probe.stdout.trim()).toBe("mpegts");
  });

  it("reads MPEG-TS with the static ffprobe alone, when no system ffprobe is there to retry on", async () => {
    const bins = ffmpegBinaries();
    if (!bins.ffprobeIsStatic) return; // this machine probes with the system's ffprobe only
    const args = ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0"];
    const alone = { ffprobe: bins.ffprobe, ffprobeIsStatic: true };
    const probe = await runFfprobe([...args, file("in.ts")], {}, alone);
    expect(probe).toMatchObject({ code: 0, signal: null });
    expect(probe.stdout.trim()).toBe("mpegts");
  });

  it("runs the probe again on the fallback when the first ffprobe crashes", async () => {
    const crashing = await fakeProbe("crashing", "kill -SEGV $$");
    const fallback = await fakeProbe("fallback-ok", 'echo "probed $1"');
    const probe = await runFfprobe(["x.mp4"], {}, { ffprobe: crashing, ffprobeFallback: fallback });
    expect(probe).toMatchObject({ code: 0, stdout: "probed x.mp4\n" });
  });

  it("keeps an ordinary failure: a non-zero exit is the file's answer, not a crash", async () => {
    const failing = await fakeProbe("failing", "echo 'Invalid data found' >&2; exit 1");
    const fallback = await fakeProbe("unused", "echo wrong; exit 0");
    const probe = await runFfprobe(["x.mp4"], {}, { ffprobe: failing, ffprobeFallback: fallback });
    expect(probe).toMatchObject({ code: 1, signal: null, stdout: "" });
  });

  it("does not retry a probe that was cancelled", async () => {
    const slow = await fakeProbe("slow", "sleep 5");
    const fallback = await fakeProbe("unused-too", "echo wrong; exit 0");
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("cancelled")), 100);
    await expect(
      runFfprobe([], { signal: controller.signal }, { ffprobe: slow, ffprobeFallback: fallback }),
    ).rejects.toThrow();
  });
});

describe("ffmpegBinaries", () => {
  it("takes FFMPEG_PATH and FFPROBE_PATH from the environment when both are set", () => {
    const saved = { ffmpeg: process.env.FFMPEG_PATH, ffprobe: process.env.FFPROBE_PATH };
    process.env.FFMPEG_PATH = "/opt/media/bin/ffmpeg";
    process.env.FFPROBE_PATH = "/opt/media/bin/ffprobe";
    try {
      expect(ffmpegBinaries()).toMatchObject({
        ffmpeg: "/opt/media/bin/ffmpeg",
        ffprobe: "/opt/media/bin/ffprobe",
        source: "system",
        // The ffmpeg the operator named joins files too.
        muxer: "/opt/media/bin/ffmpeg",
      });
    } finally {
      for (const [name, value] of [
        ["FFMPEG_PATH", saved.ffmpeg],
        ["FFPROBE_PATH", saved.ffprobe],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe("the join's ffmpeg", () => {
  it("is the bundled static build when it runs here, while uploads stay with the system's", () => {
    const bins = ffmpegBinaries();
    if (bins.source === "bundled") {
      expect(bins.muxer).toBe(bins.ffmpeg);
      return;
    }
    expect(bins.ffmpeg).not.toMatch(/@ffmpeg-installer/);
    expect(bins.muxer).toMatch(/@ffmpeg-installer\/linux-x64\/ffmpeg$/);
  });
});

describe("mediaProcessEnv", () => {
  it("asks glibc for huge pages, beside the tunables the operator already set", () => {
    expect(mediaProcessEnv({})).toEqual({ GLIBC_TUNABLES: "glibc.malloc.hugetlb=1" });
    expect(mediaProcessEnv({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2" })).toEqual({
      GLIBC_TUNABLES: "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1",
    });
  });

  it("leaves an operator's own huge-page setting alone", () => {
    expect(mediaProcessEnv({ GLIBC_TUNABLES: "glibc.malloc.hugetlb=0" })).toEqual({});
  });

  it("reaches the child a run starts, under the run's own variables", async () => {
    const script = await fakeProbe("env", 'printf "%s|%s" "$GLIBC_TUNABLES" "$KINORA_EXTRA"');
    const run = await runProcess(script, [], { env: { KINORA_EXTRA: "kept" } });
    expect(run.stdout).toBe(
      `${mediaProcessEnv().GLIBC_TUNABLES ?? process.env.GLIBC_TUNABLES}|kept`,
    );
  });
});
