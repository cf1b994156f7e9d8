#!/usr/bin/env node
/**
 * Compiles src/ to dist/ (one ES module bundle split at every lazy `import()`, so heavy modules
 * still load only when used), copies the SQL migrations beside it, and builds the migrated
 * PGlite template a new data directory starts from.
 *
 * Run by `npm install` (the `prepare` script) and, when dist/ is missing or older than src/,
 * by bin/kinora.js before it starts: the README's two commands stay the only set-up.
 * `node scripts/build.mjs --if-stale` does nothing when dist/ is current.
 */
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { BUILD_STAMP, sourceFingerprint } from "./fingerprint.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const src = path.join(root, "src");
const dist = path.join(root, "dist");

/**
 * Packages compiled into the bundle: pure-ESM libraries of many small files, which Node loads
 * one file at a time (kysely alone is ~400 files, ~0.2 s). Everything else stays an ordinary
 * import from node_modules: CommonJS packages, packages that find their own files at run time
 * (PGlite's wasm, sharp, ffmpeg, swagger-ui), and the heavy ones loaded only when used.
 */
const BUNDLED = [/^kysely(\/|$)/, /^hono(\/|$)/, /^@hono\//, /^zod(\/|$)/, /^@kinora\/client$/];

const externalUnlessBundled = {
  name: "external-unless-bundled",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("node:")) return { path: args.path, external: true };
      return BUNDLED.some((re) => re.test(args.path))
        ? undefined
        : { path: args.path, external: true };
    });
  },
};

/**
 * Builds src/ into `outDir` (default: the checkout's dist/). `entries` are the modules, relative
 * to src/, that become entry points (default: the `kinora` command); `template: false` skips the
 * database template, which a published package (packages/server) builds on its first start
 * instead, in its own cache directory.
 */
export async function buildDist({
  quiet = false,
  outDir = dist,
  entries = ["main.ts"],
  template = true,
} = {}) {
  const started = performance.now();
  const fingerprint = sourceFingerprint(root);
  // Built beside outDir and swapped in whole, so a process starting meanwhile never loads a mix.
  const next = `${outDir}.${process.pid}.tmp`;
  rmSync(next, { recursive: true, force: true });
  await build({
    // The entries are the commands; the template builder is run by this script (or by the
    // packaged server on its first start). Every dynamic import() becomes a chunk of its own,
    // loaded when first used, as under tsx.
    entryPoints: [...entries, path.join("db", "pglite-template.ts")].map((e) => path.join(src, e)),
    outdir: next,
    outbase: src,
    format: "esm",
    platform: "node",
    target: "node20",
    bundle: true,
    splitting: true,
    plugins: [externalUnlessBundled],
    jsx: "automatic",
    jsxImportSource: "hono/jsx",
    sourcemap: "linked",
    logLevel: "warning",
  });
  mkdirSync(path.join(next, "db"), { recursive: true });
  cpSync(path.join(src, "db", "migrations"), path.join(next, "db", "migrations"), {
    recursive: true,
  });
  // The stamp is written last: a build cut short is seen as stale and redone.
  writeFileSync(path.join(next, BUILD_STAMP), `${fingerprint}\n`);
  if (template) {
    const { ensureTemplate } = await import(
      pathToFileURL(path.join(next, "db", "pglite-template.js")).href
    );
    await ensureTemplate();
  }
  rmSync(outDir, { recursive: true, force: true });
  renameSync(next, outDir);
  if (!quiet) {
    const ms = Math.round(performance.now() - started);
    const what = template ? " and the database template" : "";
    const where = path.relative(root, outDir) || ".";
    process.stdout.write(`kinora: built ${where}/${what} in ${ms} ms\n`);
  }
}

const invokedDirectly =
  process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const ifStale = process.argv.includes("--if-stale");
  const { isDistFresh } = await import("./fingerprint.mjs");
  if (!(ifStale && existsSync(dist) && isDistFresh(root))) await buildDist();
}
