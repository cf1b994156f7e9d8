/** Tables and ladder checks over the benchmark's scores. Pure. */
import type { QualityScore } from "../../src/engines/restore/quality.js";
import { ALL_CONTENDERS, CONTENDER_LABEL, type ContenderName } from "./contenders.js";

export interface Row {
  /** "tuning" or "heldout" ("" for a run outside the sets, e.g. the smoke test). */
  set: string;
  clip: string;
  /** The reporting group: the damage's family, or "levels" for a clean scene lifted or lowered. */
  family: string;
  degradation: string;
  contender: ContenderName;
  score: QualityScore;
  /** Wall seconds per second of video. */
  wallPerSec: number;
  kbps: number;
  /** Click shift from input to output, samples at 48 kHz; null when not measured. */
  syncSamples: number | null;
  /** 50/60 Hz hum prominence left in the output, dB; null when not measured. */
  humDb: number | null;
  /** Streak frames' luma PSNR minus their neighbours', dB (see dropoutGapDb); null without. */
  dropoutGapDb?: number | null;
}

type Metric = "ssimY" | "ssimC" | "psnrY" | "psnrC";
export const METRICS: Metric[] = ["ssimY", "ssimC", "psnrY", "psnrC"];

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
/**
 * PSNR is infinite where a plane matches exactly (a grey picture's chroma): read as 60 dB, far
 * above any real difference, so means and comparisons stay finite.
 */
export const PSNR_CAP_DB = 60;
function metric(r: Row, m: Metric): number {
  const v = r.score[m];
  // JSON writes Infinity as null: a results file read back holds null for an exact plane.
  if (m.startsWith("psnr"))
    return v === null || v === undefined ? PSNR_CAP_DB : Math.min(PSNR_CAP_DB, v);
  return v;
}

/** Means over cells for one contender. */
export function summarise(rows: Row[]): Record<Metric | "wallPerSec" | "kbps", number> {
  const pick = (f: (r: Row) => number) => mean(rows.map(f));
  return {
    ssimY: pick((r) => metric(r, "ssimY")),
    ssimC: pick((r) => metric(r, "ssimC")),
    psnrY: pick((r) => metric(r, "psnrY")),
    psnrC: pick((r) => metric(r, "psnrC")),
    wallPerSec: pick((r) => r.wallPerSec),
    kbps: pick((r) => r.kbps),
  };
}

/**
 * The ladder every cell must climb (issue 38): Standard does no harm (≥ doing nothing),
 * Enhanced ≥ Standard and ≥ doing nothing, Studio Max ≥ Enhanced — each on luma and chroma,
 * SSIM and PSNR, within measurement noise.
 */
export const LADDER: [ContenderName, ContenderName][] = [
  ["faithful", "floor"],
  ["enhanced", "faithful"],
  ["enhanced", "floor"],
  ["enhanced_max", "enhanced"],
];
/** Measurement noise: two encodes of one picture differ by this much. */
export const TOLERANCE: Record<Metric, number> = {
  ssimY: 0.002,
  ssimC: 0.002,
  psnrY: 0.05,
  psnrC: 0.05,
};
/** Where Studio Max must beat Enhanced by STUDIO_MAX_LEAD_DB of luma PSNR, per frame. */
export const STUDIO_MAX_FAMILIES = ["noise", "blur", "lowres", "tape"];
export const STUDIO_MAX_LEAD_DB = 0.5;
/** A repaired dropout frame ends within this much luma PSNR of its neighbours. */
export const DROPOUT_GAP_DB = 0.5;

const cellKey = (r: Row) => `${r.set ? `${r.set} ` : ""}${r.clip} ${r.degradation}`;

/** Where the ladder breaks, one line per cell, rung and metric (with the measured figures). */
export function ladderBreaks(rows: Row[]): string[] {
  const out: string[] = [];
  const byCell = new Map<string, Map<ContenderName, Row>>();
  for (const r of rows) {
    const key = cellKey(r);
    if (!byCell.has(key)) byCell.set(key, new Map());
    byCell.get(key)?.set(r.contender, r);
  }
  for (const [key, cell] of byCell) {
    for (const [upper, lower] of LADDER) {
      const u = cell.get(upper);
      const l = cell.get(lower);
      if (!u || !l) continue;
      for (const m of METRICS) {
        const lead = STUDIO_MAX_FAMILIES.includes(u.family) && upper === "enhanced_max";
        const need = lead && m === "psnrY" ? STUDIO_MAX_LEAD_DB : -TOLERANCE[m];
        const diff = metric(u, m) - metric(l, m);
        if (diff < need) {
          const digits = m.startsWith("ssim") ? 4 : 2;
          out.push(
            `${key}: ${CONTENDER_LABEL[upper]} ${m} ${metric(u, m).toFixed(digits)} vs ${CONTENDER_LABEL[lower]} ${metric(l, m).toFixed(digits)} (${diff >= 0 ? "+" : ""}${diff.toFixed(digits)}, needs ${need >= 0 ? "+" : ""}${need})`,
          );
        }
      }
    }
    for (const r of cell.values()) {
      const restored =
        r.contender !== "input" && r.contender !== "floor" && r.contender !== "oneliner";
      if (restored && r.dropoutGapDb != null && r.dropoutGapDb < -DROPOUT_GAP_DB) {
        out.push(
          `${key}: ${CONTENDER_LABEL[r.contender]} streak frames ${r.dropoutGapDb.toFixed(2)} dB below their neighbours (needs ≥ −${DROPOUT_GAP_DB})`,
        );
      }
    }
  }
  return out;
}

const f2 = (x: number) => x.toFixed(2);
const f3 = (x: number) => x.toFixed(3);

/** One set's figures for a family and contender: "Y | C | SSIM Y | SSIM C" cells. */
function figures(rows: Row[]): string[] {
  if (!rows.length) return ["", "", "", ""];
  const s = summarise(rows);
  return [f2(s.psnrY), f2(s.psnrC), f3(s.ssimY), f3(s.ssimC)];
}

/**
 * A Markdown table per family × contender, the tuning and held-out sets side by side (means over
 * their cells), then the bitrate and wall time per second of video over both.
 */
export function markdownTable(rows: Row[]): string {
  const sets = [...new Set(rows.map((r) => r.set))];
  const head = sets.flatMap((s) => {
    const name = s === "heldout" ? "held-out" : s || "all";
    return [`${name} PSNR Y`, "PSNR C", "SSIM Y", "SSIM C"];
  });
  const lines = [
    `| damage | contender | cells | ${head.join(" | ")} | Mbit/s | s per s |`,
    `|---|---|---|${head.map(() => "---").join("|")}|---|---|`,
  ];
  const families = [...new Set(rows.map((r) => r.family))];
  for (const family of [...families, "overall"]) {
    for (const c of ALL_CONTENDERS) {
      const sel = rows.filter(
        (r) => (family === "overall" || r.family === family) && r.contender === c,
      );
      if (!sel.length) continue;
      const perSet = sets.flatMap((s) => figures(sel.filter((r) => r.set === s)));
      const s = summarise(sel);
      const counts = sets.map((set) => sel.filter((r) => r.set === set).length).join("+");
      lines.push(
        `| ${family} | ${CONTENDER_LABEL[c]} | ${counts} | ${perSet.join(" | ")} | ${(s.kbps / 1000).toFixed(1)} | ${c === "input" ? "–" : f2(s.wallPerSec)} |`,
      );
    }
  }
  return lines.join("\n");
}

/** Every cell's figures, one line each (for out/cells.md and a close look at one picture). */
export function cellTable(rows: Row[]): string {
  const lines = [
    "| set | clip | damage | contender | PSNR Y | PSNR C | SSIM Y | SSIM C | Mbit/s | s per s | sync | hum dB | streaks dB |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.set} | ${r.clip} | ${r.degradation} | ${CONTENDER_LABEL[r.contender]} | ${f2(metric(r, "psnrY"))} | ${f2(metric(r, "psnrC"))} | ${f3(r.score.ssimY)} | ${f3(r.score.ssimC)} | ${(r.kbps / 1000).toFixed(1)} | ${f2(r.wallPerSec)} | ${r.syncSamples ?? "–"} | ${r.humDb === null ? "–" : r.humDb.toFixed(1)} | ${r.dropoutGapDb == null ? "–" : f2(r.dropoutGapDb)} |`,
    );
  }
  return lines.join("\n");
}
