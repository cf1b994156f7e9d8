/**
 * The console's spending chart: what each key spent per day over the last 30 days, as stacked
 * bars in an inline SVG (no script, no library; it scales to the page's width), each bar part
 * titled with its day, key and amount, and a table beside it that is the legend and the totals.
 */
import type { getSpending } from "../api/contracts/ledger.js";
import type { OutputOf } from "../api/operation.js";
import { at } from "../domain/checked-index.js";
import { displayCents } from "../domain/money.js";

/** What GET /wallet/spending answers. */
type SpendingView = OutputOf<typeof getSpending>;

/** Distinguishable colours (with the text colour #1c1917 they pass 3:1 as areas). */
const COLOURS = ["#2563eb", "#d97706", "#059669", "#db2777", "#7c3aed", "#0891b2", "#65a30d"];
const OWN = "#78716c";

const W = 600;
const H = 160;
const LEFT = 52;
const BOTTOM = 18;

/** Rounds the top of the scale up to 1, 2 or 5 times a power of ten (in cents). */
function niceTop(cents: number): number {
  if (cents <= 100) return 100;
  const p = 10 ** Math.floor(Math.log10(cents));
  for (const m of [1, 2, 5, 10]) if (m * p >= cents) return m * p;
  return 10 * p;
}

/** One day's net spending of one key (`keyId` null: the wallet key's own). */
interface Cell {
  day: string;
  keyId: string | null;
  cents: number;
}

/** One key's bars: its name, colour and total over the days. */
interface Series {
  id: string | null;
  name: string;
  colour: string;
  total: number;
}

/** Series: keys in the order the keys table lists them, the wallet key's own spending last. */
function seriesOf(cells: Cell[], keys: { id: string; name: string }[]): Series[] {
  const byId = new Map(keys.map((k) => [k.id, k.name]));
  const ids = [...new Set(cells.map((c) => c.keyId))].sort((a, b) => {
    if (a === null) return 1;
    if (b === null) return -1;
    return keys.findIndex((k) => k.id === a) - keys.findIndex((k) => k.id === b);
  });
  return ids.map((id, i) => ({
    id,
    name: id === null ? "Wallet key (you)" : (byId.get(id) ?? id),
    colour: id === null ? OWN : at(COLOURS, i % COLOURS.length),
    total: cells.filter((c) => c.keyId === id).reduce((s, c) => s + c.cents, 0),
  }));
}

/** The stacked bars, one per day, each part titled with its day, key and amount. */
function Bars(props: { days: string[]; cells: Cell[]; series: Series[] }) {
  const { days, cells, series } = props;
  const dayTotals = days.map((d) =>
    cells.filter((c) => c.day === d && c.cents > 0).reduce((s, c) => s + c.cents, 0),
  );
  const top = niceTop(Math.max(0, ...dayTotals));
  const plotH = H - BOTTOM - 6;
  const slot = (W - LEFT) / days.length;
  const barW = Math.max(2, slot - 3);
  const total = series.reduce((s, x) => s + x.total, 0);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} class="chart" role="img" aria-labelledby="spending-title">
      <title id="spending-title">
        {`Spending per day from ${days[0]} to ${days.at(-1)}: ${displayCents(total)} in all; the table below lists it per key.`}
      </title>
      <line x1={LEFT} y1={6} x2={W} y2={6} stroke="#e7e5e4" />
      <line x1={LEFT} y1={6 + plotH} x2={W} y2={6 + plotH} stroke="#a8a29e" />
      <text x={LEFT - 4} y={12} text-anchor="end" font-size="13">
        {displayCents(top)}
      </text>
      <text x={LEFT - 4} y={6 + plotH} text-anchor="end" font-size="13">
        $0
      </text>
      <text x={LEFT} y={H - 3} font-size="13">
        {days[0]?.slice(5)}
      </text>
      <text x={W} y={H - 3} font-size="13" text-anchor="end">
        {days.at(-1)?.slice(5)}
      </text>
      {days.map((d, i) => {
        let base = 6 + plotH;
        return series.map((s) => {
          const cents = cells.find((c) => c.day === d && c.keyId === s.id)?.cents ?? 0;
          if (cents <= 0) return null;
          const h = Math.max(1, (cents / top) * plotH);
          base -= h;
          return (
            <rect
              x={(LEFT + i * slot + 1.5).toFixed(1)}
              y={base.toFixed(1)}
              width={barW.toFixed(1)}
              height={h.toFixed(1)}
              fill={s.colour}
            >
              <title>{`${d} · ${s.name}: ${displayCents(cents)}`}</title>
            </rect>
          );
        });
      })}
    </svg>
  );
}

/** The legend, which is also the totals per key. */
function Legend(props: { series: Series[] }) {
  return (
    <table class="spending">
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Spent in 30 days</th>
        </tr>
      </thead>
      <tbody>
        {props.series.map((s) => (
          <tr data-spender={s.id ?? "wallet"}>
            <td data-label="Key">
              <span class="swatch" style={`background:${s.colour}`} /> <bdi>{s.name}</bdi>
            </td>
            <td data-label="Spent in 30 days">{displayCents(s.total)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `keys`: the wallet's keys as the keys table lists and names them. */
export function SpendingChart(props: {
  spending: SpendingView;
  keys: { id: string; name: string }[];
}) {
  const { days } = props.spending;
  const cells: Cell[] = props.spending.spending.map((c) => ({
    day: c.day,
    keyId: c.agent_key_id,
    cents: c.spent_cents,
  }));
  const series = seriesOf(cells, props.keys);
  return (
    <section id="spending">
      <h2>Spending, last 30 days</h2>
      {cells.length === 0 ? (
        <p class="muted">Nothing spent in the last 30 days.</p>
      ) : (
        <>
          <Bars days={days} cells={cells} series={series} />
          <Legend series={series} />
        </>
      )}
    </section>
  );
}
