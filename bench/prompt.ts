/**
 * Prompt checks per second through the content rule (normalisation, age reading, innocent
 * phrases, per-category term matching) vs a naive baseline over the same prompts: lowercase
 * plus `includes` of each term. The ratio is what the thoroughness costs.
 */

import { checkPrompt } from "../src/kinds/clips/rules/prompt-rule.js";
import { NUDITY, SEXUAL } from "../src/kinds/clips/rules/prompt-terms.js";
import { ALLOWED, REFUSED } from "../test/fixtures/prompt-corpus.js";
import type { Figure } from "./lib.js";

function rate(prompts: readonly string[], rounds: number, fn: (p: string) => unknown) {
  let sink = 0;
  const started = performance.now();
  for (let r = 0; r < rounds; r++) for (const p of prompts) if (fn(p)) sink++;
  const seconds = (performance.now() - started) / 1000;
  if (sink < 0) throw new Error("unreachable");
  return (rounds * prompts.length) / seconds;
}

export function benchPrompt(rounds: number): Figure {
  const prompts = [...ALLOWED, ...REFUSED.map((c) => c.prompt)];
  const naiveTerms = [...SEXUAL.words, ...NUDITY.words].map((w) =>
    w.replace(/\(.*?\)/g, "").toLowerCase(),
  );
  const naive = (p: string) => {
    const lower = p.toLowerCase();
    return naiveTerms.some((w) => lower.includes(w));
  };
  rate(prompts, Math.max(1, rounds / 10), (p) => checkPrompt(p).allowed); // warm-up
  rate(prompts, Math.max(1, rounds / 10), naive);
  const rule = rate(prompts, rounds, (p) => checkPrompt(p).allowed);
  const baseline = rate(prompts, rounds, naive);
  return {
    name: "prompt checks (content rule)",
    value: rule,
    unit: "/s",
    baselineName: "lowercase+includes",
    baseline,
    better: "higher",
  };
}
