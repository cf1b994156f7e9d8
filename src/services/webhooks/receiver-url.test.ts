import { describe, expect, it } from "vitest";
import { ReceiverRefused, resolveReceiver } from "./receiver-url.js";

const publicDns = async () => [{ address: "93.184.216.34", family: 4 as const }];

describe("receiver URLs", () => {
  it("accepts https at a public address, pinned to what it resolved to", async () => {
    const to = await resolveReceiver(
      "https://hooks.example.com/x",
      { allowHttpLoopback: false, lookup: publicDns },
      "url",
    );
    expect(to.addresses).toEqual([{ address: "93.184.216.34", family: 4 }]);
  });

  it("refuses loopback, private and metadata addresses, and plain http, unless the operator allows loopback", async () => {
    const strict = { allowHttpLoopback: false, lookup: publicDns };
    for (const url of [
      "http://127.0.0.1:9000/x",
      "https://127.0.0.1:9000/x",
      "https://[::1]:9000/x",
      "https://192.168.1.4/x",
      "https://169.254.169.254/x",
      "http://hooks.example.com/x",
      "https://user:pw@hooks.example.com/x",
    ]) {
      await expect(resolveReceiver(url, strict, "url"), url).rejects.toBeInstanceOf(
        ReceiverRefused,
      );
    }
    const dev = { allowHttpLoopback: true, lookup: publicDns };
    await expect(resolveReceiver("http://127.0.0.1:9000/x", dev, "url")).resolves.toBeTruthy();
    // Only loopback: the development switch lets nothing else private through.
    await expect(resolveReceiver("https://10.0.0.1/x", dev, "url")).rejects.toBeInstanceOf(
      ReceiverRefused,
    );
    await expect(resolveReceiver("http://hooks.example.com/x", dev, "url")).rejects.toThrow(
      /https/,
    );
  });
});
