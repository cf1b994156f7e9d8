/**
 * A kind is its folder plus its registry line (and its migration): this test fails when a kind
 * needs an edit anywhere else. It reads every module of src/ and packages/*\/src — not tests,
 * not generated code, not the kind's own folder, not src/job-kinds.ts (the registry line) — and
 * looks, outside comments, for the names only that kind's code has reason to write: its table,
 * the prefix of its ids, its operation ids, its MCP tools and its name as a string. A module that
 * writes one of them is a hand edit a new kind would have needed too (a list of kinds, a
 * special case, a copied flow).
 *
 * The echo kind (test/kinds/echo/), and any kind added from now on, must be named nowhere.
 * Restore and clips still are, in the places KNOWN lists with the reason each is left: a new
 * place fails (the list only shrinks).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { echoKind } from "../../test/kinds/echo/kind.js";
import { JOB_KINDS } from "../job-kinds.js";
import type { JobKind } from "./kind.js";

const ROOT = join(import.meta.dirname, "../..");

/** The modules a kind could need an edit in: sources of src/ and of each package, no tests. */
function modules(): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && e.name !== "dist") walk(p);
      } else if (/\.tsx?$/.test(e.name) && !/\.(test|suite)\.tsx?$|\.d\.ts$/.test(e.name)) {
        out.push({ path: relative(ROOT, p), text: withoutComments(readFileSync(p, "utf8")) });
      }
    }
  };
  walk(join(ROOT, "src"));
  for (const pkg of readdirSync(join(ROOT, "packages"))) {
    try {
      walk(join(ROOT, "packages", pkg, "src"));
    } catch {
      // A package without sources of its own (the server's wrapper).
    }
  }
  return out;
}

const withoutComments = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");

/** Files a kind's names may stand in besides its folder: the registry line, generated code. */
const ALWAYS_ALLOWED = (path: string) =>
  path === "src/job-kinds.ts" || path.endsWith("/generated.ts");

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The names only this kind's code has reason to write, each as a pattern. */
function namesOf(kind: JobKind): { name: string; pattern: RegExp }[] {
  const words = [
    ...kind.operations.map((op) => op.contract.id),
    ...kind.operations.flatMap((op) => op.contract.mcp?.name ?? []),
  ];
  return [
    ...[...new Set(words)].map((w) => ({ name: w, pattern: new RegExp(`\\b${literal(w)}\\b`) })),
    // A table is written as a string or in SQL ("clips" is also a word of prose).
    ...kind.tables.map((name) => ({
      name,
      pattern: new RegExp(
        `["'\`]${literal(name)}["'\`]|\\b(FROM|JOIN|INTO|UPDATE|TABLE)\\s+${literal(name)}\\b`,
      ),
    })),
    { name: `${kind.idPrefix}_`, pattern: new RegExp(`["'\`]${literal(kind.idPrefix)}_`) },
    { name: `"${kind.name}"`, pattern: new RegExp(`["'\`]${literal(kind.name)}["'\`]`) },
  ];
}

/** Each kind's own folder: the src/kinds/<folder>/ whose kind.ts exports it; echo's, test's. */
const FOLDERS = new Map<JobKind, string>([[echoKind, "test/kinds/echo/"]]);
for (const dir of readdirSync(join(ROOT, "src/kinds"), { withFileTypes: true })) {
  if (!dir.isDirectory()) continue;
  const path = join(ROOT, "src/kinds", dir.name, "kind.ts");
  const exports: Record<string, unknown> = await import(/* @vite-ignore */ path);
  for (const value of Object.values(exports)) {
    if (JOB_KINDS.includes(value as JobKind))
      FOLDERS.set(value as JobKind, `src/kinds/${dir.name}/`);
  }
}
const folderOf = (kind: JobKind) => {
  const folder = FOLDERS.get(kind);
  if (!folder) throw new Error(`job kind "${kind.name}": no src/kinds/<folder>/kind.ts exports it`);
  return folder;
};

/** Every module outside the kind's folder that writes one of its names, with the names. */
function placesNaming(kind: JobKind, all: { path: string; text: string }[]) {
  const names = namesOf(kind);
  const found = new Map<string, string[]>();
  for (const { path, text } of all) {
    if (path.startsWith(folderOf(kind)) || ALWAYS_ALLOWED(path)) continue;
    const hits = names.filter((n) => n.pattern.test(text)).map((n) => n.name);
    if (hits.length > 0) found.set(path, hits);
  }
  return found;
}

/**
 * Where restore and clips are still named outside their folders, and why (issue 35 left them):
 * a place not listed here fails the test.
 */
const KNOWN: Record<string, Record<string, string>> = {
  restore: {
    "src/http/routes/worker/report.ts": "an example job id in the worker API's documentation",
    "src/api/contracts/approvals.ts": "an example operation id in the approvals' documentation",
    "packages/cli/src/commands/restore.ts": "`kinora restore`: the command of the kind",
    "packages/cli/src/commands/restore-qualities.ts": "`kinora restore`: its qualities",
    "packages/cli/src/commands/restore-resume.ts": "`kinora restore`: picking up a stopped upload",
    "packages/client/src/client.ts":
      "the SDK's parts helper (uploadRestoreParts): only a restore's file is sent in parts",
    "src/kinds/restore-segments/services/units.ts":
      "a restore's segments (a kind of their own) end and follow their restore: its queue and table by name",
  },
  restoreseg: {
    "src/kinds/restore/services/definition.ts":
      "a long restore hands its work to its segments' kind by name",
    "src/metrics/kinora-metrics.ts":
      "kinora_restore_segments_total counts that kind's units from the engine's job events",
  },
  clip: {
    "packages/cli/src/commands/clip.ts": "`kinora clip`: the command of the kind",
    "packages/cli/src/kind-presentations.ts":
      "`kinora get`'s own words for a clip (optional: a kind without them gets the generic lines)",
  },
};

describe("a kind is one folder and one registry line", () => {
  const all = modules();

  it("the echo kind is named nowhere outside its folder", () => {
    expect(Object.fromEntries(placesNaming(echoKind, all))).toEqual({});
  });

  it("finds a kind named outside its folder (the check can fail)", () => {
    const planted = {
      path: "src/mcp/extra.ts",
      text: 'if (kind === "echo") tools.push("make_echo");',
    };
    expect(Object.fromEntries(placesNaming(echoKind, [...all, planted]))).toEqual({
      "src/mcp/extra.ts": ["make_echo", '"echo"'],
    });
  });

  it("KNOWN lists only places that still name their kind (an entry leaves with its list)", () => {
    const stale = JOB_KINDS.flatMap((kind) => {
      const places = placesNaming(kind, all);
      return Object.keys(KNOWN[kind.name] ?? {})
        .filter((path) => !places.has(path))
        .map((path) => `${kind.name}: ${path}`);
    });
    expect(stale).toEqual([]);
  });

  for (const kind of JOB_KINDS) {
    it(`${kind.name} is named outside its folder only where KNOWN says why`, () => {
      const known = KNOWN[kind.name] ?? {};
      const unexplained = [...placesNaming(kind, all)].filter(([path]) => !(path in known));
      expect(Object.fromEntries(unexplained)).toEqual({});
    });
  }
});
