import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../../test/db.js";
import { echoKind } from "../../../test/kinds/echo/kind.js";
import { JOB_KINDS } from "../../job-kinds.js";
import { kindTables } from "../../kinds/kind.js";
import { type ForeignKey, readForeignKeys, readTables, type TableShape } from "./catalog.js";
import { buildCopyPlan, CopyPlanError, copyOrder, NOT_COPIED } from "./copy-plan.js";

/** The order `kinora admin migrate` copies in: the registry's kinds between the rest. */
const COPY_ORDER = copyOrder(kindTables(JOB_KINDS));

let db: TestDatabase;
let tables: Map<string, TableShape>;
let fks: ForeignKey[];

beforeAll(async () => {
  db = await openTestDatabase();
  tables = await readTables(db.db);
  fks = await readForeignKeys(db.db);
});
afterAll(async () => {
  await db.cleanup();
});

describe("the copy plan", () => {
  it("has a rule for every table the migrations create, parents before children", () => {
    expect([...tables.keys()].sort()).toEqual([...COPY_ORDER, ...Object.keys(NOT_COPIED)].sort());
    const plan = buildCopyPlan(tables, fks, COPY_ORDER);
    expect(plan.map((t) => t.name)).toEqual(COPY_ORDER);
    expect(fks).toContainEqual({ child: "ledger_entries", parent: "agent_keys" });
    for (const fk of fks) {
      expect(COPY_ORDER.indexOf(fk.child), `${fk.child} → ${fk.parent}`).toBeGreaterThan(
        COPY_ORDER.indexOf(fk.parent),
      );
    }
  });

  it("reads keys and sequences from the catalog", () => {
    const ledger = tables.get("ledger_entries");
    expect(ledger?.key).toEqual([{ name: "id", type: "bigint" }]);
    expect(ledger?.sequences).toEqual([
      { column: "id", sequence: expect.stringMatching(/ledger_entries_id_seq$/) },
    ]);
    expect(tables.get("rate_limits")?.key.map((k) => k.name)).toEqual(["bucket", "window_start"]);
    expect(tables.get("wallets")?.columns.map((c) => c.name)).toContain("balance_cents");
  });

  it("refuses a table without a rule, a missing table and a parent after its child", () => {
    const extra = new Map(tables);
    extra.set("new_feature", { name: "new_feature", columns: [], key: [], sequences: [] });
    expect(() => buildCopyPlan(extra, fks, COPY_ORDER)).toThrow(/new_feature has no copy rule/);
    // A kind's table is copied once the kind is in the registry, with no edit here.
    const echo = new Map(tables);
    echo.set("echo_jobs", {
      name: "echo_jobs",
      columns: [],
      key: [{ name: "id", type: "text" }],
      sequences: [],
    });
    expect(() => buildCopyPlan(echo, fks, COPY_ORDER)).toThrow(/echo_jobs has no copy rule/);
    const withEcho = copyOrder(kindTables([...JOB_KINDS, echoKind]));
    expect(buildCopyPlan(echo, fks, withEcho).map((t) => t.name)).toContain("echo_jobs");

    const missing = new Map(tables);
    missing.delete("clips");
    expect(() => buildCopyPlan(missing, fks, COPY_ORDER)).toThrow(
      /clips is in the copy order but not/,
    );

    const swapped: string[] = [...COPY_ORDER.filter((n) => n !== "wallets"), "wallets"];
    expect(() => buildCopyPlan(tables, fks, swapped)).toThrow(CopyPlanError);
    expect(() => buildCopyPlan(tables, fks, swapped)).toThrow(
      /agent_keys references wallets, which the copy order lists after it/,
    );
  });
});
