/**
 * The registry refuses, at start and with a sentence naming both kinds, two kinds that share a
 * name, a table, a file area, an id prefix, an operation id, a REST route or an MCP tool; a
 * declaration that contradicts itself is refused by defineJobKind.
 */
import { describe, expect, it } from "vitest";
import { echoKind } from "../../test/kinds/echo/kind.js";
import { featuresFor } from "../features.js";
import { JOB_KINDS } from "../job-kinds.js";
import { defineJobKind, type JobKind } from "./kind.js";
import { checkRegistry, RegistryError, registryProblems } from "./registry.js";

/** Echo's declaration with some of its names changed: a second kind made from the first. */
function variant(change: {
  kind?: string;
  table?: string;
  area?: string;
  idPrefix?: string;
  renameOperations?: boolean;
}): JobKind {
  const def = echoKind.definition;
  const idPrefix = change.idPrefix ?? "echo2";
  const operations = echoKind.operations.map((op) =>
    change.renameOperations === false
      ? op
      : {
          contract: {
            ...op.contract,
            id: `${op.contract.id}Two`,
            rest: op.contract.rest && {
              ...op.contract.rest,
              path: op.contract.rest.path.replace("/echo/", "/echo2/"),
            },
            mcp: op.contract.mcp && {
              ...op.contract.mcp,
              name: `${op.contract.mcp.name}_two`,
              ...(op.contract.mcp.followedBy ? { followedBy: "get_echo_two" } : {}),
            },
          },
        },
  );
  const contract = (c: (typeof operations)[number]["contract"] | undefined) => {
    if (!c) throw new Error("no contract");
    return c;
  };
  const byId = (id: string) =>
    contract(operations.find((op) => op.contract.id.startsWith(id))?.contract);
  return defineJobKind({
    ...echoKind,
    definition: {
      ...def,
      kind: change.kind ?? "echo2",
      table: change.table ?? "echo2_jobs",
      fileLayout: {
        ...def.fileLayout,
        area: change.area ?? "echo2",
        idPattern: new RegExp(`^${idPrefix}_[A-Za-z0-9_-]{1,100}$`),
      },
    },
    idPrefix,
    operations,
    roles: {
      get: byId("getEcho"),
      list: byId("listEchoes"),
      cancel: byId("cancelEcho"),
      prices: byId("getEchoPrices"),
    },
  });
}

describe("the registry", () => {
  it("takes the server's kinds and a test kind beside them", () => {
    expect(registryProblems([...JOB_KINDS, echoKind])).toEqual([]);
    expect(registryProblems([...JOB_KINDS, echoKind, variant({})])).toEqual([]);
  });

  it("refuses two kinds with one name, naming both", () => {
    expect(registryProblems([echoKind, variant({ kind: "echo" })])).toEqual([
      'job kinds "echo" (table echo_jobs) and "echo" (table echo2_jobs) both have the name "echo"',
    ]);
  });

  it("refuses two kinds with one table", () => {
    expect(registryProblems([echoKind, variant({ table: "echo_jobs" })])).toEqual([
      'job kinds "echo" (table echo_jobs) and "echo2" (table echo_jobs) both have the table "echo_jobs"',
    ]);
  });

  it("refuses a kind whose other table is another kind's table", () => {
    const claims = defineJobKind({ ...variant({}), otherTables: ["echo_jobs"] });
    expect(claims.tables).toEqual(["echo2_jobs", "echo_jobs"]);
    expect(registryProblems([echoKind, claims])).toEqual([
      'job kinds "echo" (table echo_jobs) and "echo2" (table echo2_jobs) both have the table "echo_jobs"',
    ]);
  });

  it("refuses two kinds with one file area", () => {
    expect(registryProblems([echoKind, variant({ area: "echo" })])).toEqual([
      'job kinds "echo" (table echo_jobs) and "echo2" (table echo2_jobs) both have the file area "echo"',
    ]);
  });

  it("refuses two kinds with one id prefix", () => {
    expect(registryProblems([echoKind, variant({ idPrefix: "echo" })])).toEqual([
      'job kinds "echo" (table echo_jobs) and "echo2" (table echo2_jobs) both have the id prefix "echo_"',
    ]);
  });

  it("refuses two kinds with one operation id, REST route and MCP tool", () => {
    const problems = registryProblems([echoKind, variant({ renameOperations: false })]);
    expect(problems).toContain(
      'job kinds "echo" (table echo_jobs) and "echo2" (table echo2_jobs) both have the operation id "createEcho"',
    );
    expect(problems).toContain(
      'job kinds "echo" (table echo_jobs) and "echo2" (table echo2_jobs) both have the REST route "POST /echo/jobs"',
    );
    expect(problems).toContain(
      'job kinds "echo" (table echo_jobs) and "echo2" (table echo2_jobs) both have the MCP tool "make_echo"',
    );
  });

  it("is refused whole at start: checkRegistry throws with every collision", () => {
    expect(() => checkRegistry([echoKind, variant({ kind: "echo", table: "echo_jobs" })])).toThrow(
      RegistryError,
    );
    expect(() => checkRegistry([echoKind, echoKind])).not.toThrow();
  });

  it("refuses at the start of `kinora serve`: its features are not built", () => {
    expect(() => featuresFor([...JOB_KINDS, echoKind, variant({ idPrefix: "echo" })])).toThrow(
      /job kinds "echo" \(table echo_jobs\) and "echo2" \(table echo2_jobs\) both have the id prefix "echo_"/,
    );
  });

  it("refuses two kinds sold by pay-per-job checkout", () => {
    const hooks = {
      getJobForCheckout: async () => ({}) as never,
      markCheckoutPaid: async () => {},
      cardRefundTables: { jobs: "echo_jobs", outbox: "echo_card_refunds" },
    };
    const paid = (k: JobKind): JobKind => ({ ...k, checkout: { hooks, operations: () => [] } });
    expect(registryProblems([paid(echoKind), paid(variant({}))])).toEqual([
      'job kinds "echo" (table echo_jobs) and "echo2" (table echo2_jobs) both have the pay-per-job checkout "checkouts.job_id"',
    ]);
  });
});

describe("defineJobKind", () => {
  it("refuses an id prefix its own file layout does not take", () => {
    expect(() => defineJobKind({ ...echoKind, idPrefix: "rj" })).toThrow(
      'job kind "echo": its file layout\'s idPattern does not accept its own ids (rj_0123456789abcdef)',
    );
  });

  it("refuses a role that is not one of its operations", () => {
    const [, ...rest] = echoKind.operations;
    expect(() => defineJobKind({ ...echoKind, operations: rest })).toThrow(
      'job kind "echo": its prices operation getEchoPrices is not among its operations',
    );
  });

  it("refuses a task followed by a tool the kind does not have", () => {
    const operations = echoKind.operations.filter((op) => op.contract.mcp?.name !== "get_echo");
    expect(() =>
      defineJobKind({
        ...echoKind,
        operations,
        roles: { ...echoKind.roles, get: echoKind.roles.list },
      }),
    ).toThrow(
      'job kind "echo": tool make_echo is followed by get_echo, which is not one of its tools',
    );
  });
});
