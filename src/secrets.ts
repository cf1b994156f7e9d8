/**
 * Secrets the embedded default can invent for itself: when the operator has not set one, it
 * is generated once, stored in DATA_DIR with mode 0600 and reused on every start. Several API
 * nodes must share them, so at scale set them in the environment instead.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

interface StoredSecret {
  value: string;
  /** Where it was stored, when generated or read from DATA_DIR; undefined when from the env. */
  file?: string;
  generated: boolean;
}

export function loadOrCreateSecret(
  dataDir: string,
  name: string,
  provided: string | undefined,
): StoredSecret {
  if (provided) return { value: provided, generated: false };
  const file = path.join(dataDir, name);
  if (existsSync(file)) return { value: readFileSync(file, "utf8").trim(), file, generated: false };
  mkdirSync(dataDir, { recursive: true });
  const value = randomBytes(32).toString("base64url");
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: "wx" });
  return { value, file, generated: true };
}
