/**
 * What a built client bundle would load from outside itself at run time. An installed client
 * has only the bundle, Node's built-ins and its declared dependencies; anything else is a crash
 * waiting for the first person who reaches that line (a run-time `require("cli-progress")`
 * slipped past esbuild once and broke every install after the price was charged). Used by
 * build.mjs (the build fails) and test/cli/packed.test.ts (on the installed file).
 */
import { builtinModules } from "node:module";

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageName = (spec) =>
  spec
    .split("/")
    .slice(0, spec.startsWith("@") ? 2 : 1)
    .join("/");

/**
 * Every module specifier the code names by string — `import … from "x"`, `import("x")`,
 * `require("x")` under any name esbuild gave it (`require2`, `__require`) — that is neither a
 * built-in nor in `allowed` (package names). Relative paths cannot occur in a bundle and are
 * reported too.
 * @param {string} code the bundle's text
 * @param {Iterable<string>} allowed package names it may load (its dependencies)
 * @returns {string[]} the specifiers, sorted, each once
 */
export function loadsFromOutside(code, allowed) {
  const ok = new Set(allowed);
  const patterns = [
    /\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
    /\b(?:require\d*|__require\d*)\(\s*["']([^"']+)["']\s*\)/g,
  ];
  const found = new Set();
  for (const re of patterns) {
    for (const m of code.matchAll(re)) {
      const spec = m[1];
      if (!BUILTINS.has(spec) && !ok.has(packageName(spec))) found.add(spec);
    }
  }
  return [...found].sort();
}
