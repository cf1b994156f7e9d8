#!/usr/bin/env node
/**
 * Every type assertion (`x as T`, `<T>x`; `as const` is not one) and every `any` in the
 * shipped source (src/ and packages/<name>/src, without tests and generated files) says why,
 * in a comment holding `cast:` on its own line or in the comment lines directly above it:
 *
 *   // cast: written by our own analysis from a RestorePlan; only its shape is checked on the way
 *   return params.plan as unknown as RestorePlan;
 *
 * A cast tells the compiler to stop checking; the reason is what a reviewer checks instead,
 * and the rule keeps the count from growing back unnoticed (issue 35: 498 casts once). Prefer
 * what needs no reason: a checked reader (src/domain/checked-index.ts), a guard
 * (src/domain/records.ts), a zod schema at a boundary, `satisfies`, a generic.
 *
 * Usage: node scripts/check-casts.mjs [--list]   (exit 1 when one has no reason; --list prints
 * every cast and any with its place, reasoned or not)
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The shipped source trees: src/ and each package's src/. */
function roots() {
  const packages = join(root, "packages");
  const out = [join(root, "src")];
  for (const e of readdirSync(packages, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const src = join(packages, e.name, "src");
    try {
      readdirSync(src);
      out.push(src);
    } catch {
      // A package without sources of its own (packages/server re-exports the build).
    }
  }
  return out;
}

const SHIPPED = /\.tsx?$/;
const NOT_SHIPPED = /(\.test\.tsx?|\.suite\.tsx?|\.d\.ts)$|generated/;

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "node_modules" && e.name !== "dist") yield* files(p);
    } else if (SHIPPED.test(e.name) && !NOT_SHIPPED.test(p)) {
      yield p;
    }
  }
}

const isComment = (line) => /^\s*(\/\/|\/\*|\*)/.test(line);

const SAYS_CAST = /(\/\/|\/\*).*\bcast:/;

/**
 * Whether lines first..last (0-based), the line before them (whose trailing comment the
 * formatter may have moved there: `? // cast: …`), or the comment lines right above say `cast:`.
 */
function reasoned(lines, first, last) {
  for (let i = first - 1; i <= last; i++) if (SAYS_CAST.test(lines[i] ?? "")) return true;
  for (let i = first - 1; i >= 0 && isComment(lines[i] ?? ""); i--) {
    if (/\bcast:/.test(lines[i] ?? "")) return true;
  }
  return false;
}

/** Every cast and `any` in one file's text: { line, kind, text, ok }. */
export function castFindings(text, path = "file.ts") {
  const kind = path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const lines = text.split("\n");
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line;
  const out = [];
  const visit = (node) => {
    const isCast =
      (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) &&
      !(ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(sf) === "const");
    const isAny = node.kind === ts.SyntaxKind.AnyKeyword;
    if (isCast || isAny) {
      // A cast is reasoned on any line from its expression's start to its type's end.
      const first = lineOf(node.getStart(sf));
      const last = lineOf(node.getEnd());
      out.push({
        line: first + 1,
        kind: isCast ? "cast" : "any",
        text: (isCast ? node : node.parent).getText(sf).replace(/\s+/g, " ").slice(0, 100),
        ok: reasoned(lines, first, last),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Every cast and `any` of the shipped source, with its place: { where, kind, text, ok }. */
export function checkCasts() {
  const all = [];
  for (const dir of roots()) {
    for (const path of files(dir)) {
      for (const f of castFindings(readFileSync(path, "utf8"), path)) {
        all.push({ ...f, where: `${relative(root, path)}:${f.line}` });
      }
    }
  }
  return all;
}

function main() {
  const list = process.argv.includes("--list");
  const all = checkCasts();
  const casts = all.filter((f) => f.kind === "cast").length;
  const anys = all.length - casts;
  if (list)
    for (const f of all) console.log(`${f.ok ? "ok " : "NO "} ${f.kind} ${f.where}  ${f.text}`);
  const missing = all.filter((f) => !f.ok);
  if (missing.length > 0) {
    console.error(
      `check-casts: ${missing.length} of ${casts} casts and ${anys} any lack a reason (a comment with "cast:" on the line or right above it):`,
    );
    for (const m of missing) console.error(`  ${m.where}  ${m.text}`);
    process.exit(1);
  }
  console.log(`check-casts: ${casts} casts and ${anys} any, each with its reason`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
