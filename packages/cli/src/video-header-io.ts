/** What the container-header readers share: the result types and small reads of a file. */
import type { FileHandle } from "node:fs/promises";

/** Container formats readVideoHeader (./video-length.ts) recognises. */
export type VideoContainer = "mp4" | "mov" | "matroska" | "webm" | "avi";

/** What a container header says about its video. */
export interface VideoHeader {
  /** Length in seconds, as the container header states it. */
  durationSec: number;
  /** Frame width in pixels, when the header states it. */
  width?: number;
  /** Frame height in pixels, when the header states it. */
  height?: number;
  container: VideoContainer;
  /**
   * Whether the tracks listed include a picture: false for a sound-only file (an M4A saved as
   * .mp4), absent when the header was not read that far.
   */
  video?: boolean;
}

/** A frame size, when a header states it. */
export interface FrameSize {
  width?: number;
  height?: number;
}

/** Up to `length` bytes at `position`; shorter at the end of the file. */
export async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, length));
  const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
  return buffer.subarray(0, bytesRead);
}

/** Width and height when both are stated (non-zero). */
export function frameSize(width: number, height: number): FrameSize {
  return width > 0 && height > 0 ? { width, height } : {};
}
