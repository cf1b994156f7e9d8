import { describe, expect, it } from "vitest";
import { buildConcatList, buildJoinArgs } from "./join.js";

describe("buildConcatList", () => {
  it("places each segment by its planned span and quotes every path", () => {
    const list = buildConcatList([
      { path: "/w/seg-0.mp4", durationSec: 12 },
      { path: "/w/it's seg-1.mp4", durationSec: 11.96 },
      { path: "/w/seg-2.mp4" },
    ]);
    expect(list).toBe(
      [
        "ffconcat version 1.0",
        "file '/w/seg-0.mp4'",
        "duration 12.000000",
        "file '/w/it'\\''s seg-1.mp4'",
        "duration 11.960000",
        "file '/w/seg-2.mp4'",
        "",
      ].join("\n"),
    );
  });
});

describe("buildJoinArgs", () => {
  it("copies the segments' packets and the sound's, the picture from where it starts", () => {
    expect(buildJoinArgs("/w/list.txt", "/w/sound.mp4", "/w/out.mp4", 0.2)).toEqual([
      ...["-y", "-copyts", "-f", "concat", "-safe", "0", "-itsoffset", "0.200000"],
      ...["-i", "/w/list.txt", "-i", "/w/sound.mp4", "-map", "0:v:0", "-map", "1:a:0?"],
      ...["-c", "copy", "-sn", "-dn", "-map_metadata", "-1", "-map_chapters", "-1"],
      ...["-movflags", "+faststart", "-f", "mp4", "/w/out.mp4"],
    ]);
  });

  it("joins the picture alone when there is no sound", () => {
    const args = buildJoinArgs("/w/list.txt", null, "/w/out.mp4", 0);
    expect(args).not.toContain("1:a:0?");
    expect(args.filter((a) => a === "-i")).toHaveLength(1);
  });
});
