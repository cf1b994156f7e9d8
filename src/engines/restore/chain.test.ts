import { describe, expect, it } from "vitest";
import {
  buildAudioFilter,
  buildAudioPassArgs,
  buildMuxArgs,
  buildRestoreArgs,
  buildStabiliseDetectArgs,
  buildVideoFilter,
  buildVideoPassArgs,
  deblockFilter,
  escapeFilterValue,
  transformsPathFor,
} from "./chain.js";
import { type DropoutRepair, dropoutRepairFilter } from "./dropouts.js";
import { mediaErrorFromStderr } from "./errors.js";
import { decidePlan } from "./plan.js";
import { createProgressParser } from "./progress.js";
import { errorTail } from "./run.js";
import type { Deblock, Measurements, RestoreQuality, SourceInfo } from "./types.js";

const source: SourceInfo = {
  videoCodec: "h264",
  videoStreamIndex: 0,
  width: 720,
  height: 576,
  sarNum: 1,
  sarDen: 1,
  fps: 25,
  rotationCw: 0,
  fieldOrder: "tff",
  colorMatrix: null,
  audio: { streamIndex: 1, codec: "aac", sampleRate: 44100, channels: 6 },
  headerDurationSec: 10,
};
const measured: Measurements = {
  windowSec: 60,
  interlace: { tff: 200, bff: 0, progressive: 5, undetermined: 0 },
  shakeRatio: 0.05,
  levels: { yLow: 60, yMid: 120, yHigh: 180, dark: 50, bright: 190, sat: 1 },
  noise: { y: 2, c: 4 },
  hum: { db50: 30, db60: 2 },
  loudness: { inputI: -30.5, inputTp: -9, inputLra: 6, inputThresh: -41, targetOffset: 0.3 },
};
const caps = { has: () => true };
const plan = (quality: RestoreQuality, over: Partial<SourceInfo> = {}) =>
  decidePlan({ quality, source: { ...source, ...over }, measured, caps });

describe("buildVideoFilter", () => {
  it("orders the faithful chain: deinterlace, 4:2:0, dropouts, spatial denoise", () => {
    const p = plan("faithful");
    expect(buildVideoFilter(p, "/t/x.trf")).toBe(
      "bwdif=mode=send_frame:parity=tff:deint=all,format=yuv420p," +
        `${dropoutRepairFilter(p.video.dropouts as DropoutRepair)},` +
        "hqdn3d=4.4:11.2:0:0,format=yuv420p",
    );
    // Deflicker only where flicker was measured.
    const flickering = decidePlan({
      quality: "faithful",
      source,
      measured: { ...measured, flicker: 3 },
      caps,
    });
    expect(buildVideoFilter(flickering, "/t/x.trf")).toContain(",deflicker=size=5:mode=am,");
  });

  it("adds stabilisation, tone and an upscale with colour conversion (no sharpening) when enhanced", () => {
    const p = plan("enhanced");
    const repair = dropoutRepairFilter(p.video.dropouts as DropoutRepair);
    // A grainy enlarged picture: the weak deblock's luma beside fspp's colour (one graph).
    expect(p.video.deblock).toMatchObject({ filter: "fspp-colour" });
    const deblock = deblockFilter(p.video.deblock as Deblock);
    const chain = buildVideoFilter(p, "/t/x.trf").replace(repair, "dropouts");
    // Split on commas outside quoted lutyuv expressions.
    const names = (chain.replace(deblock, "deblock").match(/(?:[^,']|'[^']*')+/g) ?? []).map(
      (f) => f.split("=")[0],
    );
    expect(names).toEqual([
      "bwdif",
      "format",
      "dropouts",
      "vidstabtransform",
      "hqdn3d",
      "lutyuv",
      "deblock",
      "zscale",
      "format",
      "zscale",
      "setsar",
      "format",
    ]);
    // Small steps on the source's block grid evened out before the scale moves the grid.
    expect(chain).toContain(`,${deblock},zscale=`);
    expect(deblock).toContain(
      "[db_y]deblock=filter=weak:block=8:alpha=0.02:beta=0.008:gamma=0.008[",
    );
    expect(chain).toContain("vidstabtransform=input=/t/x.trf:smoothing=13");
    expect(chain).toContain("u='clip(128+(val-128)*0,0,255)'");
    // At full chroma resolution: swscale's 4:2:0 matrix change leaks chroma into luma. The
    // colour is brought to 4:4:4 bilinearly and converted at the source's size, then all
    // three planes are resized with lanczos.
    expect(chain).toContain(
      "zscale=filter=bilinear:matrixin=470bg:matrix=709,format=yuv444p16le,zscale=w=900:h=720:filter=lanczos,setsar=1",
    );
    // A clean picture (nothing denoised) keeps lanczos on its colour: bilinear loses detail.
    const clean = decidePlan({
      quality: "enhanced",
      source,
      measured: { ...measured, noise: { y: 0, c: 0 } },
      caps,
    });
    expect(clean.video.denoise).toEqual([]);
    expect(buildVideoFilter(clean, "/t/x.trf")).toContain(
      "zscale=w=900:h=720:filter=lanczos:matrixin=470bg:matrix=709,setsar=1",
    );
    const noZscale = decidePlan({
      quality: "enhanced",
      source,
      measured,
      caps: { has: (f: string) => f !== "zscale" },
    });
    expect(buildVideoFilter(noZscale, "/t/x.trf")).toContain(
      "scale=900:720:flags=lanczos+accurate_rnd+full_chroma_int:in_color_matrix=bt601:out_color_matrix=bt709",
    );
  });

  it("deinterlaces to field rate in Studio Max, takes grain out by non-local means", () => {
    const chain = buildVideoFilter(plan("enhanced_max"), "/t/x.trf");
    // Non-local means leaves little grain in the colour: lanczos keeps its detail.
    expect(chain).toMatch(/zscale=w=\d+:h=\d+:filter=lanczos:matrixin=470bg:matrix=709,setsar=1/);
    expect(chain).toMatch(/^bwdif=mode=send_field:parity=tff/);
    expect(chain).toContain("nlmeans=s=2:p=7:pc=5:r=15:rc=9");
    // Where colour grain is read, the colour planes are first evened out over 5 frames.
    expect(chain).toContain(
      "atadenoise=0a=0.04:0b=0.08:1a=0.04:1b=0.08:2a=0.04:2b=0.08:s=5:p=6,nlmeans=s=2:",
    );
    expect(chain).not.toContain("unsharp");
    // A soft picture is sharpened at its own size, after the denoise and before the scale.
    const soft = decidePlan({
      quality: "enhanced_max",
      source,
      measured: { ...measured, blur: 1.1 },
      caps,
    });
    const softChain = buildVideoFilter(soft, "/t/x.trf");
    expect(softChain).toMatch(/nlmeans=[^,]*,unsharp=5:5:1:5:5:0,.*zscale=/);
    expect(buildVideoFilter(plan("enhanced"), "/t/x.trf")).not.toContain("unsharp");
  });

  it("makes no frames between frames: progressive input keeps its rate in Studio Max", () => {
    const progressive = decidePlan({
      quality: "enhanced_max",
      source: { ...source, fieldOrder: "progressive" },
      measured: { ...measured, interlace: { tff: 0, bff: 0, progressive: 200, undetermined: 0 } },
      caps,
    });
    expect(buildVideoFilter(progressive, "/t/x.trf")).not.toContain("minterpolate");
    expect(progressive.video.output.fps).toBe(25);
  });
});

describe("buildAudioFilter", () => {
  it("high-passes, notches the hum harmonics, removes hiss and applies measured loudness", () => {
    const audio = plan("faithful").audio;
    expect(audio).not.toBeNull();
    expect(buildAudioFilter(audio!)).toBe(
      [
        "highpass=f=40",
        "bandreject=f=50:width_type=h:width=4",
        "bandreject=f=100:width_type=h:width=4",
        "bandreject=f=150:width_type=h:width=4",
        "bandreject=f=200:width_type=h:width=4",
        // afftdn at 48 kHz with its 1,200-sample delay taken back, length unchanged.
        "aresample=48000",
        "apad=pad_len=1200",
        "afftdn=nr=12:nf=-50:tn=1",
        "atrim=start_sample=1200",
        "asetpts=PTS-1200/48000/TB",
        "loudnorm=I=-16:TP=-1.5:LRA=11:measured_I=-30.5:measured_TP=-9:measured_LRA=6:measured_thresh=-41:offset=0.3:linear=true",
        "aresample=48000",
      ].join(","),
    );
  });
});

describe("buildRestoreArgs", () => {
  it("writes H.264 yuv420p + AAC MP4 with faststart, downmixed to stereo", () => {
    const args = buildRestoreArgs(plan("faithful"), "/in/a.mov", "/out/b.mp4");
    const joined = args.join(" ");
    expect(args.slice(0, 3)).toEqual(["-y", "-i", "/in/a.mov"]);
    expect(joined).toContain("-map 0:0 -map 0:1");
    // CRF 18: the fixture's grain is taken out of the luma (DENOISE.crfDenoised).
    expect(joined).toContain(
      "-c:v libx264 -preset veryfast -crf 18 -x264-params chroma-qp-offset=-4 -maxrate 4000k -bufsize 8000k -profile:v high -pix_fmt yuv420p",
    );
    expect(joined).toContain("-c:a aac -b:a 160k -ac 2 -ar 48000");
    expect(joined).toContain("-movflags +faststart");
    expect(joined).toContain("-map_metadata -1");
    expect(args.slice(-3)).toEqual(["-f", "mp4", "/out/b.mp4"]);
  });

  it("drops audio handling entirely for a silent file", () => {
    const args = buildRestoreArgs(plan("faithful", { audio: null }), "/in/a.mov", "/out/b.mp4");
    expect(args).toContain("-an");
    expect(args).not.toContain("-af");
    expect(args.join(" ")).not.toContain("0:1");
  });

  it("tags converted output as BT.709 and passes thread limits", () => {
    const p = plan("enhanced");
    p.encode.threads = 2;
    const joined = buildRestoreArgs(p, "/in/a.mov", "/out/b.mp4").join(" ");
    expect(joined).toContain("-colorspace bt709");
    expect(joined).toContain("-threads 2 -filter_threads 2");
  });

  it("pairs the stabiliser's detect pass with the transform pass through one file", () => {
    const p = plan("enhanced");
    const detect = buildStabiliseDetectArgs(p, "/in/a.mov", "/out/b.mp4").join(" ");
    expect(detect).toContain(`vidstabdetect=result=${transformsPathFor("/out/b.mp4")}`);
    expect(detect).toContain("bwdif=mode=send_frame:parity=tff:deint=all,format=yuv420p,vidstab");
    expect(detect).toMatch(/-f null -$/);
  });
});

describe("the two passes and their join", () => {
  const optionAfter = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

  it("split the one-process chain without changing a filter or an encoder setting", () => {
    const p = plan("enhanced");
    p.encode.threads = 2;
    const whole = buildRestoreArgs(p, "/in/a.mov", "/out/b.mp4");
    const video = buildVideoPassArgs(p, "/in/a.mov", "/out/b.mp4", { faststart: false });
    const audio = buildAudioPassArgs(p, "/in/a.mov", "/out/s.mp4");
    for (const flag of ["-vf", "-c:v", "-crf", "-maxrate", "-bufsize", "-colorspace"]) {
      expect(optionAfter(video, flag)).toBe(optionAfter(whole, flag));
    }
    for (const flag of ["-af", "-c:a", "-b:a", "-ac", "-ar"]) {
      expect(optionAfter(audio, flag)).toBe(optionAfter(whole, flag));
    }
    // Each pass maps its own stream only, and neither pays for faststart: the join does.
    expect(video.join(" ")).toContain("-map 0:0 -vf");
    expect(video).toContain("-an");
    expect(audio.join(" ")).toContain("-map 0:1 -vn");
    expect([...video, ...audio]).not.toContain("-movflags");
    expect(video.join(" ")).toContain("-threads 2 -filter_threads 2");
  });

  it("lets a silent file's picture pass write the delivered file itself", () => {
    const p = plan("faithful", { audio: null });
    const video = buildVideoPassArgs(p, "/in/a.mov", "/out/b.mp4", { faststart: true });
    expect(video.join(" ")).toContain("-movflags +faststart -f mp4 /out/b.mp4");
    expect(() => buildAudioPassArgs(p, "/in/a.mov", "/out/s.mp4")).toThrow(/no sound/);
  });

  it("joins by copying packets at the timestamps each pass wrote, index first", () => {
    const join = buildMuxArgs("/w/v.mp4", "/w/a.mp4", "/out/b.mp4").join(" ");
    expect(join).toContain("-copyts -i /w/v.mp4 -i /w/a.mp4 -map 0:v:0 -map 1:a:0? -c copy");
    expect(join).toContain("-map_metadata -1");
    expect(join).toMatch(/-movflags \+faststart -f mp4 \/out\/b\.mp4$/);
  });
});

describe("escapeFilterValue", () => {
  it("escapes for the option parser and then for the graph parser", () => {
    expect(escapeFilterValue("/tmp/a b/c.trf")).toBe("/tmp/a b/c.trf");
    expect(escapeFilterValue("C:/x,y.trf")).toBe("C\\\\:/x\\,y.trf");
    expect(escapeFilterValue("it's[1];")).toBe("it\\\\\\'s\\[1\\]\\;");
  });
});

describe("createProgressParser", () => {
  it("reports rising fractions from -progress output split across chunks", () => {
    const seen: number[] = [];
    const feed = createProgressParser(10, (f) => seen.push(f), { from: 0.2, to: 1 });
    feed("frame=10\nout_time_us=25");
    feed("00000\nprogress=continue\nout_time_us=1000000\n");
    feed("out_time_us=5000000\nout_time_us=N/A\nout_time_us=20000000\n");
    expect(seen).toEqual([0.4, 0.6, 1]);
  });
});

describe("errors", () => {
  it("blames the input only for input problems", () => {
    expect(mediaErrorFromStderr("x.mp4: Invalid data found when processing input")?.code).toBe(
      "corrupt",
    );
    expect(mediaErrorFromStderr("[mov] moov atom not found")?.code).toBe("corrupt");
    const unsupported = mediaErrorFromStderr(
      "Decoder (codec rv60) not found for input stream #0:0",
    );
    expect(unsupported?.code).toBe("unsupported");
    expect(unsupported?.message).toContain("rv60");
    expect(mediaErrorFromStderr("No such filter: 'cas'")).toBeUndefined();
  });

  it("keeps ffmpeg's prose, not progress lines, in the error tail", () => {
    const tail = errorTail("Error opening filters!\nout_time_us=5\nprogress=end\n");
    expect(tail).toBe("Error opening filters!");
  });
});
