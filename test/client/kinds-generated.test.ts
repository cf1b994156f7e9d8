/**
 * The SDK's job kinds and wait helpers (packages/client/src/kinds/generated.ts) are the server
 * registry's: what scripts/gen-client-kinds.ts makes from src/job-kinds.ts, byte for byte (run
 * `npm run gen:client` after adding a kind). A kind added to the registry gets its helper with no
 * edit in the SDK.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatSource } from "../../scripts/gen-client.js";
import { KINDS_PATH, renderKinds } from "../../scripts/gen-client-kinds.js";
import { JOB_KINDS } from "../../src/job-kinds.js";
import { defineJobKind } from "../../src/kinds/kind.js";
import { echoKind } from "../kinds/echo/kind.js";

describe("@kinora/client's job kinds", () => {
  it("kinds/generated.ts is up to date with the registry (npm run gen:client)", async () => {
    const expected = await formatSource(renderKinds());
    expect(
      readFileSync(KINDS_PATH, "utf8") === expected,
      "packages/client/src/kinds/generated.ts is stale: npm run gen:client",
    ).toBe(true);
  });

  it("lists every kind a caller follows, with the operations its roles name", async () => {
    const { JOB_KINDS: sdk } = await import("../../packages/client/src/index.js");
    const followed = JOB_KINDS.filter((k) => k.roles);
    expect(Object.keys(sdk)).toEqual(followed.map((k) => k.name));
    for (const k of followed) {
      expect(sdk[k.name as keyof typeof sdk]).toMatchObject({
        idPrefix: k.idPrefix,
        plural: k.plural,
        get: k.roles?.get.id,
        list: k.roles?.list.id,
        cancel: k.roles?.cancel.id,
        final: k.definition.final,
      });
    }
  });

  it("gives a new kind its wait helper and its read, list and cancel with no edit in the SDK", () => {
    const source = renderKinds([...JOB_KINDS, echoKind]);
    expect(source).toContain("waitForEcho(id: string");
    expect(source).toContain("call(JOB_KINDS.echo.get, input, o)");
    // Echo's list answers `jobs` and takes up to ECHO_LIST_MAX (40) a page.
    expect(source).toContain('"listField":"jobs","listMax":40');
    expect(source).toContain("jobs: r[JOB_KINDS.echo.listField]");
    expect(source).toContain("call(JOB_KINDS.echo.cancel, input, o)");
  });

  it("refuses a kind whose list a client could not page like the others'", () => {
    const roles = echoKind.roles;
    if (!roles) throw new Error("echo has roles");
    // Its list operation answers no array of jobs: its get's answer stands in for it.
    const odd = defineJobKind({ ...echoKind, roles: { ...roles, list: roles.get } });
    expect(() => renderKinds([odd])).toThrow(
      'job kind "echo": its list operation getEcho must answer one array of jobs and next_cursor',
    );
  });
});
