import { describe, expect, it } from "vitest";
import { UnsafeUrlError } from "./fetch-errors.js";
import { isLoopbackAddress } from "./ip-ranges.js";
import { checkPublicUrl, type ResolvedAddress } from "./public-target.js";

const resolvesTo =
  (...addresses: string[]) =>
  async (): Promise<ResolvedAddress[]> =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

describe("allowLoopback (ALLOW_LOOPBACK_URLS)", () => {
  it("knows this machine's loopback from the forms of 127.x that leave it", () => {
    for (const ip of ["127.0.0.1", "127.255.0.9", "::1", "[::1]", "::ffff:127.0.0.1"]) {
      expect(isLoopbackAddress(ip), ip).toBe(true);
    }
    // NAT64 and 6to4 forms of 127.x go to a gateway or relay; the rest are not loopback at all.
    for (const ip of ["64:ff9b::7f00:1", "2002:7f00:1::", "10.0.0.1", "::", "0.0.0.0", "x"]) {
      expect(isLoopbackAddress(ip), ip).toBe(false);
    }
  });

  it("lets loopback addresses and localhost through, and nothing else that is refused", async () => {
    const dev = { allowLoopback: true, timeoutMs: 1000, field: "video_url" };
    for (const url of ["http://127.0.0.1:9000/v.mp4", "http://127.0.0.2/", "http://[::1]:8080/"]) {
      await expect(checkPublicUrl(url, dev), url).resolves.toBeUndefined();
    }
    const localhost = { ...dev, lookup: resolvesTo("127.0.0.1", "::1") };
    await expect(checkPublicUrl("http://localhost:5173/a", localhost)).resolves.toBeUndefined();
    for (const url of [
      "http://10.0.0.1/",
      "http://169.254.169.254/latest/meta-data",
      "http://[64:ff9b::7f00:1]/",
      "http://[2002:7f00:1::]/",
      "http://[fd00::1]/",
      "http://127.0.0.1:22/",
    ]) {
      await expect(checkPublicUrl(url, dev), url).rejects.toBeInstanceOf(UnsafeUrlError);
    }
    // localhost is resolved and each answer checked: a poisoned one is still refused.
    const poisoned = { ...dev, lookup: resolvesTo("127.0.0.1", "10.1.2.3") };
    await expect(checkPublicUrl("http://localhost/", poisoned)).rejects.toThrow(
      /resolves to a private address \(10\.1\.2\.3\)/,
    );
    // Other internal names stay refused by name.
    await expect(checkPublicUrl("http://app.localhost/", dev)).rejects.toThrow(/non-public host/);
  });

  it("off: loopback is refused, and the refusal names the setting", async () => {
    const strict = { timeoutMs: 1000, field: "video_url" };
    await expect(checkPublicUrl("http://127.0.0.1:9000/v.mp4", strict)).rejects.toThrow(
      /loopback address \(127\.0\.0\.1\); give a public http\(s\) URL \(.*ALLOW_LOOPBACK_URLS=1/,
    );
    await expect(checkPublicUrl("http://localhost:9000/", strict)).rejects.toThrow(
      /non-public host name \(localhost\).*ALLOW_LOOPBACK_URLS=1/,
    );
    await expect(checkPublicUrl("http://10.0.0.1/", strict)).rejects.toThrow(
      /private address \(10\.0\.0\.1\); give a public http\(s\) URL\.$/,
    );
  });
});
