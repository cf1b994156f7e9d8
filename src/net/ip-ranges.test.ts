import { describe, expect, it } from "vitest";
import { forbiddenHostName, isForbiddenAddress } from "./ip-ranges.js";

describe("isForbiddenAddress", () => {
  const forbidden: [string, string][] = [
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["10.0.0.5", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["100.100.100.200", "metadata"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "metadata"],
    ["169.254.1.1", "link-local"],
    ["168.63.129.16", "metadata"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "reserved"],
    ["192.0.2.1", "documentation"],
    ["192.88.99.1", "reserved"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.5", "private"],
    ["::ffff:a9fe:a9fe", "metadata"],
    ["::127.0.0.1", "reserved"],
    ["64:ff9b::a00:5", "private"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::169.254.169.254", "metadata"],
    ["64:ff9b:1::1", "private"],
    ["2002:a00:5::1", "private"],
    ["2002:7f00:1::", "loopback"],
    ["2002:c0a8:101::1", "private"],
    ["2001::1", "reserved"],
    ["2001:db8::1", "documentation"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["fd00:ec2::254", "metadata"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["100::1", "reserved"],
    ["4000::1", "reserved"],
    ["127.1", "invalid"],
    ["0x7f000001", "invalid"],
    ["not-an-ip", "invalid"],
    ["", "invalid"],
  ];
  it.each(forbidden)("refuses %s as %s", (ip, reason) => {
    expect(isForbiddenAddress(ip)).toBe(reason);
  });

  const allowed = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.15.255.255",
    "172.32.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "169.253.255.255",
    "192.169.0.1",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
    "2001:4860:4860::8888",
  ];
  it.each(allowed)("allows public %s", (ip) => {
    expect(isForbiddenAddress(ip)).toBeNull();
  });
});

describe("forbiddenHostName", () => {
  it.each([
    ["localhost", "loopback"],
    ["LOCALHOST.", "loopback"],
    ["api.localhost", "internal"],
    ["metadata.google.internal", "metadata"],
    ["metadata.google.internal.", "metadata"],
    ["metadata", "metadata"],
    ["instance-data.ec2.internal", "metadata"],
    ["db.corp.internal", "internal"],
    ["printer.local", "internal"],
    ["router.home.arpa", "internal"],
    ["intranet", "single-label"],
  ])("refuses %s (%s)", (host, reason) => {
    expect(forbiddenHostName(host)).toBe(reason);
  });

  it("allows ordinary public names", () => {
    expect(forbiddenHostName("images.example.com")).toBeNull();
    expect(forbiddenHostName("cdn.example.org.")).toBeNull();
  });
});
