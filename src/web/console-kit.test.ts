import { describe, expect, it } from "vitest";
import { consoleReturnOrigin } from "./console-kit.js";

describe("consoleReturnOrigin", () => {
  const PUBLIC = "https://kinora.example.com";
  it("keeps PUBLIC_URL's origin and this machine's names, whatever the port", () => {
    expect(consoleReturnOrigin(`${PUBLIC}/console/topup`, PUBLIC)).toBe(PUBLIC);
    expect(consoleReturnOrigin("http://localhost:8080/console/topup", PUBLIC)).toBe(
      "http://localhost:8080",
    );
    expect(consoleReturnOrigin("http://[::1]:8080/console/topup", "http://127.0.0.1:8080")).toBe(
      "http://[::1]:8080",
    );
  });

  it("drops any other Host, so a forged one never becomes a link on kinora's pages", () => {
    expect(consoleReturnOrigin("https://evil.example/console/topup", PUBLIC)).toBeNull();
    expect(consoleReturnOrigin("http://kinora.example.com/console/topup", PUBLIC)).toBeNull();
    expect(consoleReturnOrigin("https://localhost.evil.example/console", PUBLIC)).toBeNull();
  });
});
