import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { afterAll, describe, expect, it } from "vitest";
import { fetchPublicImage, type SafeFetchOptions } from "./safe-fetch.js";

/** img.example.com resolves to the local TLS server; only 127.0.0.1 is let through. */
function local(): SafeFetchOptions {
  return {
    maxBytes: 1_000_000,
    timeoutMs: 5_000,
    lookup: async () => [{ address: "127.0.0.1", family: 4 }],
    allowPrivateForTests: (a) => a === "127.0.0.1",
  };
}

/** A self-signed certificate for img.example.com, or null when openssl is not installed. */
function selfSignedCert(): { key: Buffer; cert: Buffer } | null {
  const dir = mkdtempSync(join(tmpdir(), "safe-fetch-tls-"));
  try {
    const [key, cert] = [join(dir, "k.pem"), join(dir, "c.pem")];
    const subject = ["-subj", "/CN=img.example.com", "-days", "1"];
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, ...subject],
      { stdio: "ignore" },
    );
    return { key: readFileSync(key), cert: readFileSync(cert) };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("fetchPublicImage over https", () => {
  const pair = selfSignedCert();
  let tlsServer: tls.Server | undefined;
  const sniSeen: string[] = [];

  afterAll(async () => {
    if (tlsServer) await new Promise((r) => tlsServer?.close(r));
  });

  it.skipIf(!pair)(
    "sends the URL's host as SNI to the pinned address and verifies the certificate",
    async () => {
      tlsServer = tls.createServer({
        ...pair!,
        SNICallback: (name, cb) => {
          sniSeen.push(name);
          cb(null, undefined);
        },
      });
      tlsServer.listen(0, "127.0.0.1");
      await once(tlsServer, "listening");
      const tlsPort = (tlsServer.address() as AddressInfo).port;
      const err = await fetchPublicImage(`https://img.example.com:${tlsPort}/png`, local()).catch(
        (e) => e,
      );
      expect(sniSeen).toEqual(["img.example.com"]);
      expect(err).toMatchObject({ code: "network" });
      expect((err as Error).message).toBe(
        "image_url could not be fetched (its TLS certificate is not valid for the host); check the URL.",
      );
    },
  );
});
