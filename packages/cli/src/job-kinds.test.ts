import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { JOB_KIND_NAMES, JOB_KINDS, type PreviewJob } from "@kinora/client";
import { afterEach, describe, expect, it } from "vitest";
import { jobLines } from "./commands/jobs.js";
import { UsageError } from "./failures.js";
import { ApiClient } from "./http.js";
import { failureOf, KINDS, kindNamed, kindOf, listJobs, resultFileName } from "./job-kinds.js";

const AT = "2026-11-25T12:00:00.000Z";

/** A preview as the server shows it: a kind the CLI's code has no words of its own for. */
const preview = (over: Partial<PreviewJob> = {}): PreviewJob => ({
  id: "pv_7Hq2",
  status: "awaiting_upload",
  price_cents: 0,
  amount_cents: 0,
  progress: null,
  size: 1000,
  video_url: null,
  fade: "auto",
  error: null,
  error_code: null,
  created_at: AT,
  updated_at: AT,
  finished_at: null,
  expires_at: AT,
  queue: null,
  preview: null,
  ...over,
});

describe("the CLI's kinds", () => {
  it("are the SDK's generated kinds, each reached by its id prefix", () => {
    expect(KINDS.map((k) => k.name)).toEqual([...JOB_KIND_NAMES]);
    for (const name of JOB_KIND_NAMES) {
      const { idPrefix, final } = JOB_KINDS[name];
      const kind = kindOf(`${idPrefix}_0123456789abcdef`);
      expect(kind.name).toBe(name);
      expect([...kind.terminal]).toEqual([...final]);
    }
  });

  it("refuses an id of no kind, naming every kind's prefix", () => {
    expect(() => kindOf("zz_123")).toThrow(UsageError);
    const forms = KINDS.map((k) => `${k.plural} with ${k.idPrefix}_`).slice(1);
    expect(() => kindOf("zz_123")).toThrow(forms.join(", "));
  });

  it("read with a key where the kind's read needs one (previews), without where not", () => {
    expect(kindNamed("preview").keyedRead).toBe(true);
    expect(kindNamed("restore").keyedRead).toBe(false);
  });
});

describe("a kind with no words of its own (preview) gets the generic lines", () => {
  const kind = kindNamed("preview");

  it("kinora get: id, kind and status, price, times and deadline", () => {
    const lines = jobLines(kind, preview());
    expect(lines[0]).toBe("pv_7Hq2  preview  waiting for the upload");
    expect(lines).toContain("Price     free");
    expect(lines.some((l) => l.startsWith(`Created   ${AT} (`))).toBe(true);
    expect(lines).toContain(`Expires   ${AT}: upload the file by then or the job expires`);
    expect(lines).toContain("Follow    kinora get pv_7Hq2 --follow");
  });

  it("a failure names the kind and says nothing was charged; the file is named by the id", () => {
    const failed = failureOf(kind, preview({ status: "failed", error: "The video is corrupt." }));
    expect(failed?.message).toBe("The preview failed: The video is corrupt. Nothing was charged.");
    const refused = failureOf(kind, preview({ status: "refused", error: "too long" }));
    expect(refused?.message).toBe("The preview was refused (refused). Nothing was charged.");
    expect(failureOf(kind, preview({ status: "done" }))).toBeUndefined();
    expect(resultFileName(kind, preview())).toBe("pv_7Hq2");
  });
});

describe("kinora jobs' listing", () => {
  let server: ReturnType<typeof createServer> | undefined;
  afterEach(() => server?.close());

  /** A server answering what `answer` gives, 404 where it gives nothing; the paths asked. */
  async function serve(answer: (req: IncomingMessage, url: URL) => unknown) {
    const seen: string[] = [];
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? "/", "http://x");
      seen.push(`${url.pathname}${url.search}`);
      const body = answer(req, url);
      res.writeHead(body ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(body ?? { detail: "Not found.", code: "not_found" }));
    });
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    return { api: new ApiClient(`http://127.0.0.1:${port}`, "pmk_test"), seen };
  }

  it("pages a kind's list until the newest N, and leaves out a kind the server does not serve", async () => {
    const jobs = Array.from({ length: 5 }, (_, i) =>
      preview({ id: `pv_${i}`, created_at: new Date(Date.parse(AT) - i * 1000).toISOString() }),
    );
    const { api, seen } = await serve((_req, url) => {
      if (url.pathname !== "/preview/jobs") return undefined;
      const from = Number(url.searchParams.get("cursor") ?? 0);
      const limit = Number(url.searchParams.get("limit"));
      const page = jobs.slice(from, from + Math.min(limit, 2));
      const next = from + page.length < jobs.length ? String(from + page.length) : null;
      return { jobs: page, next_cursor: next };
    });
    const listed = await listJobs(api, 4);
    expect(listed.map(({ kind, job }) => `${kind.name} ${job.id}`)).toEqual([
      "preview pv_0",
      "preview pv_1",
      "preview pv_2",
      "preview pv_3",
    ]);
    expect(seen.filter((s) => s.startsWith("/preview/"))).toEqual([
      "/preview/jobs?limit=4",
      "/preview/jobs?limit=2&cursor=2",
    ]);
  });

  it("fails when no kind's list is served at all (not a kinora server)", async () => {
    const { api } = await serve(() => undefined);
    await expect(listJobs(api, 4)).rejects.toThrow("Not found.");
  });
});
