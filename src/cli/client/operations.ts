/**
 * Calling a kinora operation by its contract (src/api/contracts): the method, the path with its
 * ids filled in, the query or JSON body, and whether a key is sent all come from the contract,
 * and the answer has the contract's output type — the client writes no path or shape of its own.
 */

import type { z } from "zod";
import type { AnyContract, OutputOf } from "../../api/operation.js";
import type { ApiClient, RequestOptions } from "./http.js";

type Args<C extends AnyContract> = z.input<C["input"]>;

/** Calls `contract` over REST with `args` (its input, under the contract's field names). */
export function callOperation<C extends AnyContract>(
  api: ApiClient,
  contract: C,
  args: Args<C>,
  opts: Omit<RequestOptions, "body" | "query" | "auth"> = {},
): Promise<OutputOf<C>> {
  const rest = contract.rest;
  if (!rest) throw new Error(`${contract.id} has no REST binding`);
  const rest_: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  let path = rest.path;
  for (const [field, value] of Object.entries(rest_)) {
    const name = rest.names?.[field] ?? field;
    if (path.includes(`{${name}}`)) {
      path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
      delete rest_[field];
    }
  }
  const renamed = Object.fromEntries(
    Object.entries(rest_).map(([field, value]) => [rest.names?.[field] ?? field, value]),
  );
  // Reads that need no key do not send one: the key never travels where it is not needed.
  const auth = contract.auth !== "none";
  if (rest.method === "get") {
    const query = renamed as Record<string, string | number | undefined>;
    return api.request<OutputOf<C>>("GET", path, { ...opts, query, auth });
  }
  // POST, PATCH…: the contract's own method, with the input as the JSON body.
  return api.request<OutputOf<C>>(rest.method.toUpperCase(), path, {
    ...opts,
    body: renamed,
    auth,
  });
}
