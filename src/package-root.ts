/**
 * The directory of kinora's package.json, found by walking up from the calling module: the
 * same answer whether the code runs from src/ under tsx or from the compiled bundle in dist/.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The directory holding kinora's package.json (from src/ under tsx or from dist/). */
export function packageRoot(moduleUrl: string = import.meta.url): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  while (!existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
  return dir;
}
