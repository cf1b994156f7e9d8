/** Reads GET /metrics through the app and parses the exposition text into series → value. */
import type { TestApp } from "../app.js";

export const METRICS_TOKEN = "test-metrics-token-0123456789";

export interface Scrape {
  text: string;
  /** The value of one series, e.g. get('kinora_rate_limited_total{rule="quote"}'); 0 if absent. */
  get(series: string): number;
}

export function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

export async function scrape(t: TestApp, token = METRICS_TOKEN): Promise<Scrape> {
  const res = await t.app.request("/metrics", { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${text}`);
  const series = parseExposition(text);
  return { text, get: (s) => series.get(s) ?? 0 };
}
