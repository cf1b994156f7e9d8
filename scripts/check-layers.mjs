#!/usr/bin/env node
/**
 * The layer rule, checked over the import graph of src/ (run by `npm run check` and a test):
 *
 *   domain ← infra ← services (with api/, the contract) ← adapters ← composition
 *
 * A module may import its own layer or any layer below it, never above. The adapters (http with
 * its web pages, mcp, cli, workers) are separate surfaces over the same services: none imports
 * another. Import cycles between modules are refused too, since a cycle makes "below" meaningless,
 * and so are two folders that import each other (even through different modules): a folder is a
 * unit a reader learns as a whole, and two that lean on each other are one unit in disguise.
 * A module directly in src/ (app.ts, job-kinds.ts, …) counts as a folder of its own there, so a
 * loop between it and a folder (features/ ↔ job-kinds.ts) is refused like one between folders.
 * A job kind (kinds/<kind>/) is reached from outside its folder only by composition, and only
 * through its declaration (its kind.ts): nothing below composition imports a kind, so db/,
 * engines/, payments, webhooks and the surfaces take what they need of a kind from the registry.
 * Tests (*.test.ts beside the code they test, *.suite.ts) compose freely and are not checked; test
 * helpers, fakes and fixtures live under test/, and one left in src/ is refused by its name.
 * Type-only imports count: a type pointing upwards still couples a rule to its caller.
 *
 * The published packages (packages/*) are checked the same way inside themselves: no cycle, no
 * two folders (or a folder and a top file) that import each other, and their own upward arrows
 * (PACKAGE_LAYERS: a command is imported only by the package's entry).
 *
 * Usage: node scripts/check-layers.mjs [--json]   (exit 1 when anything is wrong)
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

/** Layer number and, for adapters, the surface group; first matching prefix wins. */
const LAYERS = [
  ["domain/", 0, "domain"],
  ["config.ts", 1, "infra"],
  ["config/", 1, "infra"],
  ["logger.ts", 1, "infra"],
  ["secrets.ts", 1, "infra"],
  ["signing.ts", 1, "infra"],
  ["standard-webhooks.ts", 1, "infra"],
  ["package-root.ts", 1, "infra"],
  ["db/", 1, "infra"],
  ["storage/", 1, "infra"],
  ["net/", 1, "infra"],
  ["engines/", 1, "infra"],
  ["payments/", 1, "infra"],
  ["metrics/", 1, "infra"],
  // The public contract: request/response schemas and each operation's contract (REST, MCP and
  // client derive from it); it knows only the domain, so services may return its types.
  ["api/", 1, "infra"],
  // Each operation's handler over the services, and the policies every surface shares.
  ["operations/", 2, "services"],
  ["jobs/", 2, "services"],
  ["services/", 2, "services"],
  ["oauth/", 2, "services"],
  ["http/", 3, "http"],
  ["web/", 3, "http"],
  ["mcp/", 3, "mcp"],
  ["cli/", 3, "cli"],
  ["workers/", 3, "workers"],
  ["features/", 4, "composition"],
  // What every kind's kind.ts uses (defineJobKind, the registry check): composition.
  ["kinds/", 4, "composition"],
  ["features.ts", 4, "composition"],
  ["job-kinds.ts", 4, "composition"],
  ["app.ts", 4, "composition"],
  ["feature.ts", 4, "composition"],
  ["server.ts", 4, "composition"],
  ["server-database.ts", 4, "composition"],
  ["worker.ts", 4, "composition"],
  ["core-tasks.ts", 4, "composition"],
  ["main.ts", 4, "composition"],
  ["server-commands.ts", 4, "composition"],
];

/**
 * A job kind's folder (kinds/<kind>/) holds the kind whole, so its files sit in the layers their
 * role names: its rules are domain, its schemas and contracts the contract, its services and
 * operations services, its executor a worker (the workers surface), its kind.ts composition.
 */
const KIND_ROLES = [
  ["rules/", 0, "domain"],
  ["api/", 1, "infra"],
  ["services/", 2, "services"],
  ["operations.ts", 2, "services"],
  ["executor/", 3, "workers"],
  ["kind.ts", 4, "composition"],
];

/** The kind a module of kinds/<kind>/ belongs to, and its path inside that folder. */
export function kindOf(file) {
  const m = /^kinds\/([^/]+)\/(.+)$/.exec(file);
  return m ? { kind: m[1], inner: m[2] } : undefined;
}

const matches = (prefix, file) =>
  prefix.endsWith("/") ? file.startsWith(prefix) : file === prefix;

export function layerOf(file) {
  const inKind = kindOf(file);
  if (inKind) {
    for (const [prefix, level, group] of KIND_ROLES) {
      if (matches(prefix, inKind.inner)) return { level, group };
    }
    return undefined;
  }
  for (const [prefix, level, group] of LAYERS) {
    if (matches(prefix, file)) return { level, group };
  }
  return undefined;
}

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(entry.name) && !/\.(test|suite)\.tsx?$/.test(entry.name))
      out.push(path);
  }
  return out;
}

/** Names of test-only modules (helpers, fakes, fixtures), which live under test/, never in src/. */
const TEST_HELPER = /(^|\/)(fixtures?|fakes?)\/|[.-]test-helpers?\.tsx?$|(^|\/)test-[^/]*\.tsx?$/;

const IMPORT =
  /(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Relative specifiers of one file, resolved to src-relative paths (".js" → the ".ts" source). */
function importsOf(path) {
  const text = readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, "");
  const found = new Set();
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    if (!spec.startsWith(".")) continue;
    const target = relative(src, resolve(dirname(path), spec)).replace(/\.jsx?$/, "");
    found.add(target);
  }
  return [...found];
}

function resolveTarget(target, known) {
  for (const ext of [".ts", ".tsx", "/index.ts"]) if (known.has(target + ext)) return target + ext;
  return undefined;
}

/**
 * Why an import of a kind's module from outside the kinds' folders is refused, or undefined:
 * only composition reaches a kind, and only through its declaration (kinds/<kind>/kind.ts) —
 * what the kind offers the rest of the server is declared there (defineJobKind), so the
 * registry can list it and no lower layer depends on a kind.
 */
export function kindReachProblem(file, from, to, toKind) {
  if (from && from.level < 4) {
    return `${file} (${from.group}) imports a job kind's module: ${to} (only composition reaches a kind, through its kind.ts)`;
  }
  if (toKind.inner !== "kind.ts") {
    return `${file} reaches inside job kind ${toKind.kind}: ${to} (take it from the kind's declaration, kinds/${toKind.kind}/kind.ts)`;
  }
  return undefined;
}

/** Every import edge that breaks the rule, and every cycle (as the files on it). */
export function checkLayers() {
  const files = sourceFiles(src).map((p) => relative(src, p));
  const known = new Set(files);
  const graph = new Map();
  const problems = [];
  for (const file of files) {
    if (TEST_HELPER.test(file)) problems.push(`${file}: a test helper; it belongs under test/`);
    const from = layerOf(file);
    if (!from) problems.push(`${file}: not in any layer (add it to scripts/check-layers.mjs)`);
    const edges = [];
    for (const raw of importsOf(join(src, file))) {
      const to = resolveTarget(raw, known);
      if (!to) continue;
      edges.push(to);
      const target = layerOf(to);
      const fromKind = kindOf(file);
      const toKind = kindOf(to);
      if (fromKind && toKind && fromKind.kind !== toKind.kind) {
        problems.push(`${file} (kind ${fromKind.kind}) imports another kind: ${to}`);
      }
      const reach = !fromKind && toKind ? kindReachProblem(file, from, to, toKind) : undefined;
      if (reach) problems.push(reach);
      if (!from || !target) continue;
      if (target.level > from.level) {
        problems.push(`${file} (${from.group}) imports upwards: ${to} (${target.group})`);
      } else if (target.level === 3 && from.level === 3 && target.group !== from.group) {
        problems.push(`${file} (${from.group}) imports another surface: ${to} (${target.group})`);
      }
    }
    graph.set(file, edges);
  }
  for (const cycle of cycles(graph)) problems.push(`import cycle: ${cycle.join(" → ")}`);
  problems.push(...mutualFolders(graph));
  return problems;
}

/**
 * The unit of src/ a module belongs to: its top folder (`services` for
 * services/ledger.ts), or for a module directly in src/ the module itself (`job-kinds.ts`).
 */
const folderOf = (file) => (file.includes("/") ? file.slice(0, file.indexOf("/")) : file);

/** How a unit is named in a message: `services/`, or `job-kinds.ts`. */
const unitName = (unit) => (unit.includes(".") ? unit : `${unit}/`);

/** Every pair of top folders that import each other, once, with the imports that make it. */
export function mutualFolders(graph) {
  const edges = new Map();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = folderOf(from);
      const b = folderOf(to);
      // Two single modules that import each other are a cycle, reported as one.
      if (a === b || (a.includes(".") && b.includes("."))) continue;
      const key = `${a}\0${b}`;
      if (!edges.has(key)) edges.set(key, []);
      edges.get(key).push(`${from} → ${to}`);
    }
  }
  const problems = [];
  for (const [key, there] of edges) {
    const [a, b] = key.split("\0");
    if (a > b) continue;
    const back = edges.get(`${b}\0${a}`);
    if (!back) continue;
    const list = (imports) => imports.sort().join(", ");
    problems.push(
      `folders import each other: ${unitName(a)} and ${unitName(b)} (${list(there)}; and back: ${list(back)})`,
    );
  }
  return problems;
}

/** Strongly connected components with more than one file (Tarjan), each as one cycle report. */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (v) => {
    const s = { index, low: index, onStack: true };
    index++;
    state.set(v, s);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      const t = state.get(w);
      if (!t) {
        visit(w);
        s.low = Math.min(s.low, state.get(w).low);
      } else if (t.onStack) s.low = Math.min(s.low, t.index);
    }
    if (s.low === s.index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        state.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!state.has(v)) visit(v);
  return found;
}

/**
 * Within a package, the modules that may import a folder's modules though it sits above them:
 * a command (packages/cli/src/commands/) is imported only by the package's entry (index.ts),
 * so the command-line kit below the commands never depends on one command.
 */
const PACKAGE_LAYERS = [{ folder: "commands/", importedOnlyBy: ["index.ts"] }];

/** The import graph of one package's src/ (package-relative paths), relative imports only. */
function packageGraph(srcDir, files) {
  const known = new Set(files.map((p) => relative(srcDir, p)));
  const graph = new Map();
  for (const path of files) {
    const edges = [];
    const text = readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, "");
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith(".")) continue;
      const raw = relative(srcDir, resolve(dirname(path), spec)).replace(/\.jsx?$/, "");
      const to = resolveTarget(raw, known);
      if (to) edges.push(to);
    }
    graph.set(relative(srcDir, path), edges);
  }
  return graph;
}

/** A package's own structure: no cycle, no two units that import each other, no upward arrow. */
export function packageStructure(name, graph) {
  const problems = [];
  for (const cycle of cycles(graph)) {
    problems.push(`${name}: import cycle: ${cycle.join(" → ")}`);
  }
  for (const m of mutualFolders(graph)) problems.push(`${name}: ${m}`);
  for (const [from, targets] of graph) {
    for (const to of targets) {
      for (const { folder, importedOnlyBy } of PACKAGE_LAYERS) {
        const upward = to.startsWith(folder) && !from.startsWith(folder);
        if (upward && !importedOnlyBy.includes(from)) {
          problems.push(
            `${name}: ${from} imports upwards: ${to} (only ${importedOnlyBy.join(", ")} imports ${folder})`,
          );
        }
      }
    }
  }
  return problems;
}

/** The modules and package.json of each published package (packages/<name>/src). */
function packagesWithSources() {
  const found = [];
  const packagesDir = join(root, "packages");
  for (const entry of readdirSync(packagesDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(packagesDir, entry.name);
    let pkg;
    let files;
    try {
      pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      files = sourceFiles(join(dir, "src"));
    } catch {
      continue;
    }
    found.push({ dir, srcDir: join(dir, "src"), pkg, files });
  }
  return found;
}

/**
 * The published packages (packages/*) stand alone: a module there imports only its own package,
 * Node's built-ins and the packages its package.json names — never the server's src/ — so what
 * `npm pack` ships is what runs, and the client never carries server code. Inside, each package
 * keeps the server's structure rules (packageStructure).
 */
export function checkPackages() {
  const problems = [];
  for (const { dir, srcDir, pkg, files } of packagesWithSources()) {
    const named = new Set([
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.devDependencies ?? {}),
      ...Object.keys(pkg.optionalDependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}),
    ]);
    for (const path of files) {
      const text = readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, "");
      const file = relative(root, path);
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[1] ?? m[2];
        if (spec.startsWith(".")) {
          if (relative(dir, resolve(dirname(path), spec)).startsWith("..")) {
            problems.push(`${file} imports outside its package: ${spec}`);
          }
        } else if (!spec.startsWith("node:")) {
          const name = spec.startsWith("@")
            ? spec.split("/").slice(0, 2).join("/")
            : spec.split("/")[0];
          if (!named.has(name)) {
            problems.push(
              `${file} imports ${name}, which ${pkg.name}'s package.json does not name`,
            );
          }
        }
      }
    }
    problems.push(...packageStructure(relative(root, srcDir), packageGraph(srcDir, files)));
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = [...checkLayers(), ...checkPackages()];
  if (process.argv.includes("--json")) console.log(JSON.stringify(problems, null, 2));
  else for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`check-layers: ${problems.length} problem(s); see docs/architecture.md`);
    process.exit(1);
  }
  console.log(
    "check-layers: every import points down a layer, no cycles, no mutual folders (src/ and packages/)",
  );
}
