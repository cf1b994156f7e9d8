import { once } from "node:events";
import { createServer, type Server } from "node:http";
import net, { type AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  fetchPublicImage,
  ImageFetchError,
  type ResolvedAddress,
  type SafeFetchOptions,
  UnsafeUrlError,
} from "./safe-fetch.js";

let server: Server;
let port = 0;
let connections = 0;
let lastHost = "";
const images: Record<string, Buffer> = {};

async function makeImage(format: "png" | "jpeg" | "webp"): Promise<Buffer> {
  const raw = { raw: { width: 4, height: 4, channels: 3 as const } };
  return sharp(Buffer.alloc(48, 200), raw).toFormat(format).toBuffer();
}

function route(path: string, res: import("node:http").ServerResponse, url: URL) {
  const send = (status: number, type: string, body: Buffer | string) => {
    res.writeHead(status, { "content-type": type });
    res.end(body);
  };
  if (path === "/png") return send(200, "image/png", images.png!);
  if (path === "/jpeg") return send(200, "image/jpeg", images.jpeg!);
  if (path === "/webp") return send(200, "image/webp", images.webp!);
  if (path === "/octet") return send(200, "application/octet-stream", images.png!);
  if (path === "/lying-html") return send(200, "image/png", "<html><body>hi</body></html>");
  if (path === "/tiny") return send(200, "image/png", Buffer.from([0x89, 0x50]));
  if (path === "/redirect") {
    res.writeHead(302, { location: url.searchParams.get("to") ?? "/png" });
    return res.end();
  }
  if (path === "/loop") {
    res.writeHead(301, { location: "/loop" });
    return res.end();
  }
  if (path === "/big")
    return send(200, "image/png", Buffer.concat([images.png!, Buffer.alloc(5000)]));
  if (path === "/big-chunked") {
    res.writeHead(200, { "content-type": "image/png" });
    res.write(images.png!);
    for (let i = 0; i < 10; i++) res.write(Buffer.alloc(1000));
    return res.end();
  }
  if (path === "/slow") {
    res.writeHead(200, { "content-type": "image/png" });
    res.write(images.png!.subarray(0, 16));
    const timer = setInterval(() => res.write(Buffer.alloc(1)), 100);
    res.on("close", () => clearInterval(timer));
    return;
  }
  send(404, "text/plain", "not found");
}

beforeAll(async () => {
  images.png = await makeImage("png");
  images.jpeg = await makeImage("jpeg");
  images.webp = await makeImage("webp");
  server = createServer((req, res) => {
    lastHost = req.headers.host ?? "";
    const url = new URL(req.url ?? "/", "http://x");
    route(url.pathname, res, url);
  });
  server.on("connection", () => connections++);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

afterEach(() => vi.restoreAllMocks());

/** Fake DNS: public-looking names map to the local server or to forbidden addresses. */
const zone: Record<string, ResolvedAddress[]> = {
  "img.example.com": [{ address: "127.0.0.1", family: 4 }],
  "multi.example.com": [
    { address: "93.184.216.34", family: 4 },
    { address: "10.0.0.5", family: 4 },
  ],
  "private.example.com": [{ address: "192.168.0.10", family: 4 }],
  "mapped.example.com": [{ address: "::ffff:10.0.0.5", family: 6 }],
  "nat64.example.com": [{ address: "64:ff9b::a9fe:a9fe", family: 6 }],
  "sixtofour.example.com": [{ address: "2002:c0a8:101::1", family: 6 }],
  "ula.example.com": [{ address: "fd00::1", family: 6 }],
  "empty.example.com": [],
};
const fakeLookup = async (host: string) => zone[host] ?? [];

/** Options for fetching from the local server: only 127.0.0.1 is let through. */
function local(extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return {
    maxBytes: 1_000_000,
    timeoutMs: 5_000,
    lookup: fakeLookup,
    allowPrivateForTests: (a) => a === "127.0.0.1",
    ...extra,
  };
}

const strict: SafeFetchOptions = { maxBytes: 1_000_000, timeoutMs: 5_000, lookup: fakeLookup };

describe("fetchPublicImage refuses forbidden targets before connecting", () => {
  const literal = () => [
    [`http://127.0.0.1:${port}/png`, "loopback address (127.0.0.1)"],
    [`http://2130706433:${port}/png`, "(127.0.0.1)"],
    [`http://0x7f000001:${port}/png`, "(127.0.0.1)"],
    [`http://017700000001:${port}/png`, "(127.0.0.1)"],
    [`http://0177.0.0.1:${port}/png`, "(127.0.0.1)"],
    [`http://127.1:${port}/png`, "(127.0.0.1)"],
    [`http://0:${port}/png`, "unspecified address (0.0.0.0)"],
    ["http://0.0.0.0/", "unspecified"],
    ["http://[::1]/", "loopback address (::1)"],
    ["http://[::]/", "unspecified"],
    [`http://[::ffff:127.0.0.1]:${port}/png`, "loopback address (::ffff:7f00:1)"],
    ["http://[::ffff:7f00:1]/", "loopback"],
    ["http://[64:ff9b::10.0.0.5]/", "private address (64:ff9b::a00:5)"],
    ["http://[2002:a00:5::1]/", "private"],
    ["http://[2002:7f00:1::]/", "loopback"],
    ["http://10.1.2.3/", "private address (10.1.2.3)"],
    ["http://100.64.0.1/", "carrier-grade NAT"],
    ["http://169.254.169.254/latest/meta-data/", "cloud metadata address (169.254.169.254)"],
    ["http://169.254.10.10/", "link-local"],
    ["http://172.16.0.1/", "private"],
    ["http://192.0.0.170/", "reserved"],
    ["http://192.0.2.1/", "documentation"],
    ["http://192.168.1.1/", "private"],
    ["http://198.18.0.1/", "benchmarking"],
    ["http://198.51.100.1/", "documentation"],
    ["http://203.0.113.1/", "documentation"],
    ["http://224.0.0.1/", "multicast"],
    ["http://240.0.0.1/", "reserved"],
    ["http://255.255.255.255/", "broadcast"],
    ["http://[fc00::1]/", "unique-local"],
    ["http://[fd00:ec2::254]/", "metadata"],
    ["http://[fe80::1]/", "link-local"],
    ["http://[ff02::1]/", "multicast"],
    ["http://[2001:db8::1]/", "documentation"],
    ["http://metadata.google.internal/computeMetadata/v1/", "non-public host name"],
    ["http://metadata/", "non-public host name"],
    ["http://localhost/", "non-public host name (localhost)"],
    ["http://LocalHost./", "non-public host name"],
    ["http://foo.localhost/", "non-public host name"],
    ["http://multi.example.com/", "resolves to a private address (10.0.0.5)"],
    ["http://private.example.com/", "resolves to a private address (192.168.0.10)"],
    ["http://mapped.example.com/", "resolves to a private address (::ffff:10.0.0.5)"],
    ["http://nat64.example.com/", "cloud metadata address (64:ff9b::a9fe:a9fe)"],
    ["http://sixtofour.example.com/", "private address (2002:c0a8:101::1)"],
    ["http://ula.example.com/", "unique-local"],
  ];

  it("refuses every loopback, private, metadata and reserved form, with no connection", async () => {
    const connect = vi.spyOn(net.Socket.prototype, "connect");
    const before = connections;
    for (const [url, fragment] of literal()) {
      const err = await fetchPublicImage(url!, strict).catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(UnsafeUrlError);
      expect((err as Error).message, url).toContain(fragment);
      // A loopback target adds how a development server allows it: still one sentence.
      expect((err as Error).message, url).toMatch(
        /^image_url .*; give a public http\(s\) URL( \(a development server .*ALLOW_LOOPBACK_URLS=1[^)]*\))?\.$/,
      );
    }
    expect(connect).not.toHaveBeenCalled();
    expect(connections).toBe(before);
  });

  it.each([
    ["ftp://example.com/a.png", "must use http or https"],
    ["file:///etc/passwd", "must use http or https"],
    ["gopher://example.com/", "must use http or https"],
    ["data:image/png;base64,iVBORw0KGgo=", "must use http or https"],
    ["http://user:secret@example.com/a.png", "user name or password"],
    ["http://example.com:22/a.png", "port 22"],
    ["http://example.com:25/a.png", "port 25"],
    ["not a url", "not a valid URL"],
    [`http://example.com/${"a".repeat(2100)}`, "longer than 2048"],
  ])("refuses %s", async (url, fragment) => {
    const err = await fetchPublicImage(url, strict).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect((err as Error).message).toContain(fragment);
  });

  it("reports a name that does not resolve", async () => {
    const err = await fetchPublicImage("http://empty.example.com/", strict).catch((e) => e);
    expect(err).toBeInstanceOf(ImageFetchError);
    expect(err).toMatchObject({ code: "dns" });
  });
});

describe("fetchPublicImage fetches real images", () => {
  it.each([
    ["png", "image/png"],
    ["jpeg", "image/jpeg"],
    ["webp", "image/webp"],
  ])("fetches a %s and types it by its magic bytes", async (name, type) => {
    const url = `http://img.example.com:${port}/${name}`;
    const got = await fetchPublicImage(url, local());
    expect(got.contentType).toBe(type);
    expect(got.bytes.equals(images[name]!)).toBe(true);
    expect(got.finalUrl).toBe(url);
    expect(lastHost).toBe(`img.example.com:${port}`);
  });

  it("ignores a generic Content-Type when the bytes are a PNG", async () => {
    const got = await fetchPublicImage(`http://img.example.com:${port}/octet`, local());
    expect(got.contentType).toBe("image/png");
  });

  it("follows a redirect and reports the final URL", async () => {
    const got = await fetchPublicImage(
      `http://img.example.com:${port}/redirect?to=/redirect%3Fto%3D/jpeg`,
      local(),
    );
    expect(got.contentType).toBe("image/jpeg");
    expect(got.finalUrl).toBe(`http://img.example.com:${port}/jpeg`);
  });
});

describe("fetchPublicImage re-checks redirects and pins DNS", () => {
  it.each([
    ["http://10.0.0.5/x.png", "private address (10.0.0.5)"],
    ["http://169.254.169.254/latest/meta-data/", "cloud metadata"],
    ["http://[::1]/", "loopback"],
    ["http://private.example.com/x.png", "resolves to a private address"],
    ["http://metadata.google.internal/", "non-public host name"],
    ["file:///etc/passwd", "must use http or https"],
    ["http://example.com:22/", "port 22"],
  ])("refuses a redirect to %s", async (to, fragment) => {
    const connect = vi.spyOn(net.Socket.prototype, "connect");
    const url = `http://img.example.com:${port}/redirect?to=${encodeURIComponent(to)}`;
    const err = await fetchPublicImage(url, local()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect((err as Error).message).toContain(fragment);
    expect(connect).toHaveBeenCalledTimes(1); // the first hop only
  });

  it("refuses a redirect to a loopback literal even when the first hop was allowed", async () => {
    const to = `http://127.0.0.2:${port}/png`;
    const url = `http://img.example.com:${port}/redirect?to=${encodeURIComponent(to)}`;
    await expect(fetchPublicImage(url, local())).rejects.toThrow(
      /loopback address \(127\.0\.0\.2\)/,
    );
  });

  it("connects to the checked address even when DNS changes its answer (rebinding)", async () => {
    let calls = 0;
    const rebinding = async (): Promise<ResolvedAddress[]> =>
      calls++ === 0 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "127.0.0.2", family: 4 }]; // the "private" one: nothing listens there
    const got = await fetchPublicImage(
      `http://rebind.example.com:${port}/png`,
      local({ lookup: rebinding }),
    );
    expect(got.contentType).toBe("image/png");
    expect(calls).toBe(1); // resolved once, then pinned: no second lookup at connect time
  });

  it("re-resolves on a redirect hop and refuses the rebound address", async () => {
    let calls = 0;
    const rebinding = async (): Promise<ResolvedAddress[]> =>
      calls++ === 0 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "127.0.0.2", family: 4 }];
    const to = `http://rebind.example.com:${port}/png`;
    const url = `http://rebind.example.com:${port}/redirect?to=${encodeURIComponent(to)}`;
    const err = await fetchPublicImage(url, local({ lookup: rebinding })).catch((e) => e);
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect((err as Error).message).toContain("resolves to a loopback address (127.0.0.2)");
  });

  it("stops after the redirect limit", async () => {
    const err = await fetchPublicImage(`http://img.example.com:${port}/loop`, local()).catch(
      (e) => e,
    );
    expect(err).toMatchObject({ code: "too_many_redirects" });
    expect((err as Error).message).toContain("more than 3 times");
  });
});

describe("fetchPublicImage caps size, time and type", () => {
  it("refuses a declared body over maxBytes", async () => {
    const opts = local({ maxBytes: 1000 });
    const err = await fetchPublicImage(`http://img.example.com:${port}/big`, opts).catch((e) => e);
    expect(err).toMatchObject({ code: "too_large" });
  });

  it("aborts a streamed body once it passes maxBytes", async () => {
    const opts = local({ maxBytes: 2000 });
    const url = `http://img.example.com:${port}/big-chunked`;
    const err = await fetchPublicImage(url, opts).catch((e) => e);
    expect(err).toMatchObject({ code: "too_large" });
    expect((err as Error).message).toMatch(/^image_url is larger than/);
  });

  it("times out a slow server", async () => {
    const started = Date.now();
    const opts = local({ timeoutMs: 300 });
    const err = await fetchPublicImage(`http://img.example.com:${port}/slow`, opts).catch((e) => e);
    expect(err).toMatchObject({ code: "timeout" });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("rethrows the caller's abort reason", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("client went away")), 100);
    const opts = local({ signal: controller.signal });
    await expect(fetchPublicImage(`http://img.example.com:${port}/slow`, opts)).rejects.toThrow(
      "client went away",
    );
  });

  it("refuses bytes that are not an image, whatever the Content-Type says", async () => {
    const url = `http://img.example.com:${port}/lying-html`;
    const err = await fetchPublicImage(url, local()).catch((e) => e);
    expect(err).toMatchObject({ code: "bad_type" });
    expect((err as Error).message).toBe(
      "image_url is not a JPEG, PNG or WebP image; give a URL to one of those.",
    );
  });

  it("refuses a body too short to be an image", async () => {
    const err = await fetchPublicImage(`http://img.example.com:${port}/tiny`, local()).catch(
      (e) => e,
    );
    expect(err).toMatchObject({ code: "bad_type" });
  });

  it("honours allowedContentTypes", async () => {
    const opts = local({ allowedContentTypes: ["image/png"] });
    const err = await fetchPublicImage(`http://img.example.com:${port}/jpeg`, opts).catch((e) => e);
    expect(err).toMatchObject({ code: "bad_type" });
  });

  it("reports a non-200 answer", async () => {
    const err = await fetchPublicImage(`http://img.example.com:${port}/nope`, local()).catch(
      (e) => e,
    );
    expect(err).toMatchObject({ code: "http_status" });
    expect((err as Error).message).toContain("HTTP 404");
  });
});
