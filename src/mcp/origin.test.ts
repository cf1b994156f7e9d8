import { describe, expect, it } from "vitest";
import { allowedHostnames, hostRefusal } from "./origin.js";

describe("the Host check", () => {
  const hosts = allowedHostnames("https://kinora.example");

  it("takes PUBLIC_URL's host name and the loopback names, any port, any case", () => {
    for (const host of [
      "kinora.example",
      "kinora.example:443",
      "KINORA.example",
      "kinora.example.",
      "localhost:8080",
      "127.0.0.1",
      "[::1]:3000",
    ]) {
      expect(hostRefusal(host, hosts), host).toBeUndefined();
    }
  });

  it("refuses any other name or address, and a malformed Host", () => {
    for (const host of [
      "evil.example",
      "kinora.example.evil.example",
      "evilkinora.example",
      "127.0.0.2",
      "[::2]",
      "10.0.0.1:443",
      "kinora.example@evil.example",
    ]) {
      expect(hostRefusal(host, hosts), host).toMatch(/^Invalid Host/);
    }
    expect(hostRefusal("a b", hosts)).toMatch(/^Invalid Host header/);
  });
});
