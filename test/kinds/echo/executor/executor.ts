/** The worker side of echo: reads the text through the work item's URL and sends it back. */
import type { Executor } from "../../../../src/jobs/work.js";
import { EchoParams } from "../services/definition.js";

type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

/** The echo executor: `item.params` arrives parsed (`shout` is a boolean here). */
export function createEchoExecutor(fetchImpl: Fetch = fetch): Executor<EchoParams> {
  return {
    kind: "echo",
    params: EchoParams,
    async execute(item, ctx) {
      const res = await fetchImpl(item.inputUrl, { signal: ctx.signal });
      if (!res.ok) throw new Error(`input download: ${res.status}`);
      const text = await res.text();
      ctx.progress(1);
      return { outputBytes: 0, meta: { echo: item.params.shout ? text.toUpperCase() : text } };
    },
  };
}
