import type { ClipJob, RestoreJob } from "@kinora/client";
import { describe, expect, it } from "vitest";
import { kindNamed } from "../job-kinds.js";
import { jobLines } from "./jobs.js";

const AT = "2026-11-25T12:00:00.000Z";

const delivery = {
  id: "dlv_1",
  event_id: "evt_1",
  type: "job.completed",
  endpoint_id: null,
  state: "failed" as const,
  attempts: 3,
  next_attempt_at: null,
  last_attempt_at: AT,
  last_status_code: 500,
  last_error: "the receiver answered 500",
  delivered_at: null,
  created_at: AT,
};

describe("kinora get's lines", () => {
  it("show a clip's webhook and each delivery's state, attempts and last answer", () => {
    const clip: ClipJob = {
      id: "clip_1",
      status: "done",
      size: "480p",
      seconds: 5,
      prompt: "rain on the window",
      loop: true,
      amount_cents: 59,
      seed: 7,
      image_url: null,
      progress: null,
      error: null,
      refused: null,
      created_at: AT,
      updated_at: AT,
      finished_at: AT,
      expires_at: AT,
      queue: null,
      webhook: {
        url: "https://example.com/hook",
        events: ["job.completed"],
        deliveries: [delivery],
      },
      download_url: "https://example.com/clip_1.mp4",
    };
    const lines = jobLines(kindNamed("clip"), clip);
    expect(lines).toContain("Clip      5 s 480p, loop, seed 7");
    expect(lines).toContain("Webhook   https://example.com/hook (job.completed)");
    expect(lines).toContain(
      "            job.completed failed (3 attempts, HTTP 500): the receiver answered 500",
    );
  });

  it("show a restore's measured length, the refund of the difference and the queue", () => {
    const job: RestoreJob = {
      id: "rj_1",
      status: "processing",
      quality: "enhanced",
      quality_label: "Enhanced",
      fade: "auto",
      amount_cents: 299,
      display_price: "$2.99",
      declared_amount_cents: 499,
      duration_sec: 600,
      measured_duration_sec: 240,
      width: 720,
      height: 576,
      filename: "tape.mp4",
      content_type: "video/mp4",
      size: 1000,
      video_url: null,
      paid_from_balance: true,
      progress: 0.5,
      download_url: null,
      error: null,
      error_code: null,
      created_at: AT,
      updated_at: AT,
      finished_at: null,
      expires_at: AT,
      queue: { state: "running", position: 0, ahead: 0, eta_seconds: 90, estimated_done_at: AT },
      webhook: null,
    };
    const lines = jobLines(kindNamed("restore"), job);
    expect(lines[0]).toBe("rj_1  restore  processing 50%");
    expect(lines).toContain("Length    10:00 declared, measured 4:00, 720×576");
    expect(lines).toContain("Price     $2.99 from the balance");
    expect(lines).toContain("Refund    $2.00 of $4.99 back: shorter than declared");
    expect(lines).toContain("Progress  50%");
    expect(lines).toContain(
      `Queue     a worker is running it; about 1m 30s left (done about ${AT})`,
    );
    expect(lines).toContain(`Follow    kinora get rj_1 --follow`);
    expect(lines.some((l) => l.startsWith("Webhook"))).toBe(false);
    // The analysis decided the levels: nothing to say; what the person said is shown.
    expect(lines.some((l) => l.startsWith("Fade"))).toBe(false);
    expect(jobLines(kindNamed("restore"), { ...job, fade: "faded" })).toContain(
      "Fade      told faded: levels corrected",
    );

    // Started but waiting for a worker (a restore stays processing): queued with its place,
    // no "processing 0%".
    const queued = jobLines(kindNamed("restore"), {
      ...job,
      progress: 0,
      queue: { state: "queued", position: 2, ahead: 1, eta_seconds: 145, estimated_done_at: AT },
    });
    expect(queued[0]).toBe("rj_1  restore  waiting for a worker");
    expect(queued).toContain(`Queue     2nd in the queue; about 2m 25s left (done about ${AT})`);
    expect(queued.some((l) => l.startsWith("Progress"))).toBe(false);

    // Waiting in line for its upload deadline; failed and refunded; done with its links.
    const waiting = jobLines(kindNamed("restore"), {
      ...job,
      status: "awaiting_upload",
      progress: null,
      queue: null,
    });
    expect(waiting).toContain(`Expires   ${AT}: upload the file by then or the job expires`);
    const failed = jobLines(kindNamed("restore"), {
      ...job,
      status: "failed",
      queue: null,
      error: "The encoder crashed.",
    });
    expect(failed).toContain("Refund    $2.99 to the balance (failed)");
    expect(failed).toContain("Error     The encoder crashed.");
    const done = jobLines(kindNamed("restore"), {
      ...job,
      status: "done",
      queue: null,
      download_url: "https://files.example/d/rj_1",
    });
    expect(done).toContain(`Kept      until ${AT}, then its files are deleted`);
    expect(done).toContain("Link      https://files.example/d/rj_1 (temporary)");
    expect(done.some((l) => l.startsWith("Queue") || l.startsWith("Refund    $2.99"))).toBe(false);
  });
});
