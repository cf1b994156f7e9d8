import { describe, expect, it } from "vitest";
import { MediaError } from "./errors.js";
import {
  checkScan,
  decodeCheckArgs,
  decodeWindows,
  MAX_FRAME_RATE,
  parseDecodeCounts,
  refuseNonVideo,
  seeksToKeyframes,
  undecodable,
} from "./validate.js";

const video = { codec_type: "video", codec_name: "h264", width: 640, height: 480 };
const audio = { codec_type: "audio", codec_name: "aac" };
const coverArt = { ...video, codec_name: "mjpeg", disposition: { attached_pic: 1 } };
const probe = (format: string, ...streams: object[]) => ({
  format: { format_name: format },
  streams,
});
const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err instanceof MediaError ? err.code : String(err);
  }
  return "accepted";
};

describe("refuseNonVideo", () => {
  it("refuses sound only (cover art is not a picture), nothing at all, and image containers", () => {
    expect(codeOf(() => refuseNonVideo(probe("mov,mp4,m4a,3gp,3g2,mj2", audio)))).toBe("no_video");
    expect(codeOf(() => refuseNonVideo(probe("mp3", audio, coverArt)))).toBe("no_video");
    expect(() => refuseNonVideo(probe("mp3", audio))).toThrow(/sound only/);
    expect(() => refuseNonVideo(probe("data"))).toThrow(/no picture to restore/);
    for (const still of ["image2", "png_pipe", "jpeg_pipe", "webp_pipe", "tiff_pipe"]) {
      expect(codeOf(() => refuseNonVideo(probe(still, video)))).toBe("still_image");
    }
  });

  it("accepts video containers, animated GIFs and Motion JPEG", () => {
    for (const format of ["mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "avi", "gif", "mpegts"]) {
      expect(codeOf(() => refuseNonVideo(probe(format, video, audio)))).toBe("accepted");
    }
  });
});

describe("checkScan", () => {
  const scan = (seconds: number | null, videoPackets: number | null, stderr = "") => ({
    seconds,
    videoPackets,
    stderr,
  });

  it("returns the scanned length of a usable video", () => {
    expect(checkScan(scan(12.5, 300), 12.5)).toBe(12.5);
    // Headers lie without damage (MPEG-TS estimates): the packets win, nothing is refused.
    expect(checkScan(scan(3.4, 85), 9)).toBe(3.4);
  });

  it("refuses a single picture, nothing readable, and under a second", () => {
    expect(codeOf(() => checkScan(scan(0.04, 1), 0.04))).toBe("still_image");
    expect(codeOf(() => checkScan(scan(null, 0), 3))).toBe("corrupt");
    expect(codeOf(() => checkScan(scan(0.96, 24), 0.96))).toBe("too_short");
    expect(() => checkScan(scan(0.996, 25), null)).toThrow(/only 0\.99 s long/);
    expect(checkScan(scan(1, 25), null)).toBe(1);
  });

  it("refuses frames faster than a restore takes, and takes every tape and broadcast rate", () => {
    // A minute of 25p packed into 5 s at 300 fps (the review's free-preview repro).
    const packed = () => checkScan(scan(5.004, 1501), 5.004);
    expect(codeOf(packed)).toBe("unsupported");
    expect(packed).toThrow(/runs at 300 frames a second: a restore takes at most 60\. Convert/);
    expect(codeOf(() => checkScan(scan(10, 1200), 10))).toBe("unsupported");
    expect(MAX_FRAME_RATE).toBe(60);
    // 25p, 29.97p, 50i / 59.94i coded as separate fields, 50p, 60p and a variable-rate 60.
    for (const [seconds, packets] of [
      [10, 250],
      [10, 300],
      [10, 500],
      [10.01, 600],
      [10, 600],
      [9.9, 610],
    ] as const) {
      expect(checkScan(scan(seconds, packets), seconds)).toBe(seconds);
    }
  });

  it("refuses a file cut off short of its header when the demuxer reports the damage", () => {
    const cut = scan(0.96, 24, "[mov,mp4] stream 0, offset 0x1680b: partial file");
    expect(() => checkScan(cut, 3)).toThrow(/stops after 0\.9 s of its 3 s: the file is cut off/);
    // Damage near the end, most of it there: restored (and priced by what is there).
    expect(checkScan({ ...cut, seconds: 2.9 }, 3)).toBe(2.9);
  });

  it("prefers the cut-off reason to the decode check's, and the decode check's to a still", () => {
    const failed = new MediaError("corrupt", "undecodable");
    const cut = scan(1.2, 30, "partial file");
    expect(() => checkScan(cut, 6, failed)).toThrow(/cut off/);
    expect(() => checkScan(scan(0.01, 1), 3, failed)).toThrow("undecodable");
  });
});

describe("the decode check", () => {
  it("looks at the start, the middle and the end; a short file whole", () => {
    expect(decodeWindows(2)).toEqual([0]);
    expect(decodeWindows(60)).toEqual([0, 29.5, 58.5]);
    const args = decodeCheckArgs("in.mp4", [0, 29.5, 58.5], 60);
    expect(args.join(" ")).toContain("-t 1 -i in.mp4 -noaccurate_seek -ss 29.5 -t 1 -i in.mp4");
    expect(args.filter((a) => a === "null")).toHaveLength(3);
    expect(decodeCheckArgs("in.mp4", [0], 2.5).join(" ")).toContain("-t 3 -i in.mp4");
    expect(decodeCheckArgs("in.mp4", [0], 1.5).join(" ")).toContain("-t 2.5 -i in.mp4");
    // MPEG-TS seeks land on any packet: only the start is decoded there.
    expect(decodeWindows(60, false)).toEqual([0]);
    expect(seeksToKeyframes(probe("mpegts", video))).toBe(false);
    expect(seeksToKeyframes(probe("mov,mp4,m4a,3gp,3g2,mj2", video))).toBe(true);
    expect(seeksToKeyframes(probe("matroska,webm", video))).toBe(true);
  });

  it("reads ffmpeg's per-input counts and judges each window", () => {
    const stderr = [
      "  Input stream #0:0 (video): 28 packets read (106813 bytes); 27 frames decoded; ",
      "  Input stream #1:0 (video): 100 packets read (391286 bytes); 12 frames decoded; ",
      "  Input stream #2:0 (video): 50 packets read (193242 bytes); 0 frames decoded; 0 decode errors;",
    ].join("\n");
    const counts = parseDecodeCounts(stderr);
    expect([...counts.values()]).toEqual([
      { packets: 28, frames: 27 },
      { packets: 100, frames: 12 },
      { packets: 50, frames: 0 },
    ]);
    expect(undecodable(counts)).toBe(true);
    expect(undecodable(new Map([[0, { packets: 28, frames: 27 }]]))).toBe(false);
    // A few frames lost to an open GOP at a seek point is not damage.
    expect(undecodable(new Map([[1, { packets: 25, frames: 22 }]]))).toBe(false);
    // Too few packets to judge a share, but not one frame anywhere: damaged.
    expect(undecodable(new Map([[0, { packets: 3, frames: 0 }]]))).toBe(true);
    // No counts printed: no verdict.
    expect(undecodable(new Map())).toBe(false);
  });
});
