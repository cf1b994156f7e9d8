/**
 * Whether dist/ was compiled from the sources on disk (src/, and the client and SDK sources it
 * bundles from packages/): a digest of every source file's path, size
 * and modification time (the way make decides), stored in dist/ by the build. Stat-only, so
 * checking ~300 files at each start costs a few milliseconds.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export const BUILD_STAMP = ".build-stamp";

function listFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...listFiles(full));
    else if (!/\.test\.tsx?$/.test(entry.name)) files.push(full);
  }
  return files;
}

export function sourceFingerprint(root) {
  const hash = createHash("sha256");
  const files = [
    ...listFiles(path.join(root, "src")),
    ...listFiles(path.join(root, "packages", "cli", "src")),
    ...listFiles(path.join(root, "packages", "client", "src")),
    path.join(root, "scripts", "build.mjs"),
    path.join(root, "package.json"),
  ].sort();
  for (const file of files) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${path.relative(root, file)}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest("hex");
}

export function isDistFresh(root) {
  try {
    const stamp = readFileSync(path.join(root, "dist", BUILD_STAMP), "utf8").trim();
    return stamp === sourceFingerprint(root);
  } catch {
    return false;
  }
}
