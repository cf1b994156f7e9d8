/**
 * The client's stored sign-in: `$XDG_CONFIG_HOME/kinora/config.json` (else ~/.config/…) with
 * the server and the key. The key is a bearer secret, so the directory is 0700 and the file
 * 0600 from the moment it exists (written to a temp file with that mode, then renamed).
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { EXIT } from "./exit-codes.js";
import { CliFailure } from "./failures.js";

interface StoredConfig {
  server?: string;
  key?: string;
}

/** The config file's path under a config home directory. */
export function configFilePath(configHome: string): string {
  return path.join(configHome, "kinora", "config.json");
}

/** The stored config, or {} when there is none; a damaged file is an error naming it. */
export async function readConfigFile(file: string): Promise<StoredConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    // cast: a failed readFile throws Node's errno error; only its code is compared
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
  try {
    // cast: JSON.parse is typed any; unknown makes the checks below necessary
    const data = JSON.parse(text) as unknown;
    if (data && typeof data === "object" && !Array.isArray(data)) {
      // cast: checked to be a plain object just above; its fields are checked one by one
      const { server, key } = data as Record<string, unknown>;
      return {
        ...(typeof server === "string" ? { server } : {}),
        ...(typeof key === "string" ? { key } : {}),
      };
    }
  } catch {
    // Reported below with the file's name.
  }
  throw new CliFailure(
    `${file} is not a kinora config file; delete it and run kinora login again.`,
    EXIT.failed,
  );
}

/** Writes the config atomically with owner-only permissions; an empty config removes the file. */
export async function writeConfigFile(file: string, config: StoredConfig): Promise<void> {
  if (config.server === undefined && config.key === undefined) {
    await rm(file, { force: true });
    return;
  }
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir leaves an existing directory's mode alone; a config dir others can list is tightened.
  await chmod(dir, 0o700);
  const tmp = path.join(dir, `.config.json.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
