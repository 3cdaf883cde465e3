/**
 * Rolling windows and pivot tables.
 *
 * rolling: pandas' df[col].rolling(window).agg() over a frame split into partitions, as dask's
 * map_overlap does it: the task of partition i gets the last window - 1 rows of every earlier
 * partition (tail tasks, so a partition shorter than the window still passes rows on), takes the
 * last window - 1 of their concatenation as the rows before its own, and returns its own rows with
 * the new columns. A window is its row and the window - 1 before it; it gives null until it holds
 * min_periods present values (default: the window), as pandas. NaN and null count as missing;
 * count instead needs min_periods rows in its window, present or not (pandas 2: [1, NaN, 3, 4]
 * over 3 rows counts [NaN, NaN, 2, 2]).
 *
 * pivot: pandas' pivot_table(index, columns, values, aggfunc) from the rows of a groupby on
 * [index, columns]: one row per index value, one column per value of `columns` given by the
 * caller, rows sorted by index (dask, too, needs the categories known in advance: the output schema is fixed when the
 * workflow compiles). A missing combination is null, as pandas' NaN.
 */
import type { Table, Vector } from 'apache-arrow';
import { column, numView, strView, valueTypeOf } from './columns';
import { floatVector } from './build';
import { concatTables, single, tableOf, takeTable } from './gather';
import { factorize, firstRows } from './keys';
import { makeVector } from 'apache-arrow';
import { sortTable } from './sort';

export type RollingAgg = 'sum' | 'mean' | 'min' | 'max' | 'std' | 'var' | 'count';
export interface RollingSpec {
  /** Rows per window; with `on`, ignored in favour of windowMs. */
  window: number;
  /** A time window (pandas' rolling('2h', on=t)): the rows with t in (t_i - windowMs, t_i]. */
  on?: string;
  windowMs?: number;
  minPeriods?: number;
  cols: { column: string; agg: RollingAgg; as: string }[];
}

function windowStat(xs: number[], agg: RollingAgg): number {
  const n = xs.length;
  if (agg === 'count') return n;
  if (agg === 'min') return Math.min(...xs);
  if (agg === 'max') return Math.max(...xs);
  let s = 0;
  for (const x of xs) s += x;
  if (agg === 'sum') return s;
  const mean = s / n;
  if (agg === 'mean') return mean;
  if (n < 2) return NaN;
  let m2 = 0;
  for (const x of xs) m2 += (x - mean) * (x - mean);
  return agg === 'var' ? m2 / (n - 1) : Math.sqrt(m2 / (n - 1));
}

/**
 * First row of each time window over [the last k rows of lead, own] (rows in time order, which
 * is checked: pandas refuses an unsorted or null `on`): the first row with t > t_end - windowMs.
 */
function timeStarts(lead: Table | null, k: number, own: Table, on: string, windowMs: number): (end: number) => number {
  const t = new Float64Array(k + own.numRows);
  const parts: [Table, number][] = lead && k > 0 ? [[lead, lead.numRows - k], [own, 0]] : [[own, 0]];
  let at = 0;
  for (const [tbl, from] of parts) {
    const v = numView(column(tbl, on, 'rolling'), on);
    for (let r = from; r < v.values.length; r++, at++) {
      if ((v.valid && !v.valid[r]) || v.values[r] !== v.values[r]) throw new Error(`rolling: column '${on}' has a null time; a time window needs every row's time (as pandas)`);
      t[at] = v.values[r];
      if (at > 0 && t[at] < t[at - 1]) throw new Error(`rolling: column '${on}' is not sorted ascending (${new Date(t[at]).toISOString()} after ${new Date(t[at - 1]).toISOString()}); a time window needs it sorted, as pandas`);
    }
  }
  const starts = new Int32Array(t.length);
  let s = 0;
  for (let e = 0; e < t.length; e++) {
    while (t[s] <= t[e] - windowMs) s++;
    starts[e] = s;
  }
  return (end) => starts[end];
}

/** Rows of `t` a later partition's time windows can reach: time > (its last time) - windowMs. */
export function timeTail(t: Table, on: string, windowMs: number): Table {
  const v = numView(column(t, on, 'rolling'), on).values;
  if (v.length === 0) return t;
  const last = v[v.length - 1];
  let s = v.length;
  while (s > 0 && v[s - 1] > last - windowMs) s--;
  return t.slice(s);
}

/** `own` with the rolling columns; `before`: tables of earlier rows (tails of earlier partitions, in order). */
export function rolling(before: Table[], own: Table, spec: RollingSpec): Table {
  const w = spec.window;
  const timed = spec.on !== undefined && spec.windowMs !== undefined;
  if (!timed && (!Number.isInteger(w) || w < 1)) throw new Error(`rolling: window must be a whole number >= 1, got ${w}`);
  // pandas: a time window needs one present value by default, a row window a full window.
  const minP = spec.minPeriods ?? (timed ? 1 : w);
  const prev = before.filter((t) => t.numRows > 0);
  const lead = prev.length ? concatTables(prev) : null;
  // Time tails hold only rows within the window of their partition's end, so all of them are kept.
  const k = lead ? (timed ? lead.numRows : Math.min(w - 1, lead.numRows)) : 0;
  const startOf = timed ? timeStarts(lead, k, own, spec.on as string, spec.windowMs as number) : (end: number) => Math.max(0, end - w + 1);
  const out: { name: string; vector: Vector }[] = own.schema.fields.map((f) => ({ name: f.name, vector: own.getChild(f.name) as Vector }));
  for (const c of spec.cols) {
    const mine = numView(column(own, c.column, 'rolling'), c.column);
    const head = lead && k > 0 ? numView(column(lead, c.column, 'rolling'), c.column) : null;
    const n = own.numRows;
    const all = new Float64Array(k + n);
    const ok = new Uint8Array(k + n);
    if (head) {
      const off = head.values.length - k;
      for (let i = 0; i < k; i++) {
        all[i] = head.values[off + i];
        ok[i] = (!head.valid || head.valid[off + i]) && all[i] === all[i] ? 1 : 0;
      }
    }
    for (let i = 0; i < n; i++) {
      all[k + i] = mine.values[i];
      ok[k + i] = (!mine.valid || mine.valid[i]) && all[k + i] === all[k + i] ? 1 : 0;
    }
    const res = new Float64Array(n);
    const valid = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const end = k + i;
      const start = startOf(end);
      const xs: number[] = [];
      for (let j = start; j <= end; j++) if (ok[j]) xs.push(all[j]);
      // pandas' count holds min_periods against the rows in the window, NaN included, so a full
      // window of [1, NaN, 3] counts 2 where the other aggregates would need 3 present values.
      const seen = c.agg === 'count' ? end - start + 1 : xs.length;
      if (seen >= minP && (c.agg === 'count' || xs.length > 0)) {
        res[i] = windowStat(xs, c.agg);
        valid[i] = Number.isNaN(res[i]) ? 0 : 1;
      }
    }
    const at = out.findIndex((o) => o.name === c.as);
    const col = { name: c.as, vector: floatVector(res, valid) };
    if (at >= 0) out[at] = col;
    else out.push(col);
  }
  return tableOf(out, own.numRows);
}

export interface PivotSpec {
  index: string;
  columns: string;
  /** The value column of the groupby result that holds the aggregate. */
  values: string;
  /** The values of `columns` that become output columns, in order. */
  categories: (string | number)[];
}

/** The pivot of a groupby result with columns [index, columns, values] (see the module comment). */
export function pivot(grouped: Table, spec: PivotSpec): Table {
  const { ids: [ids], groups } = factorize([grouped], [[spec.index]], 'pivot_table');
  const keys = takeTable(grouped, firstRows(ids, groups));
  const cv = column(grouped, spec.columns, 'pivot_table');
  const labels: (string | number | null)[] = [];
  if (valueTypeOf(cv.type) === 'string') {
    const s = strView(cv, spec.columns);
    for (let i = 0; i < s.codes.length; i++) labels.push(s.valid && !s.valid[i] ? null : s.dict[s.codes[i]]);
  } else {
    const x = numView(cv, spec.columns);
    for (let i = 0; i < x.values.length; i++) labels.push(x.valid && !x.valid[i] ? null : x.values[i]);
  }
  const vals = numView(column(grouped, spec.values, 'pivot_table'), spec.values);
  const cols = spec.categories.map(() => ({ v: new Float64Array(groups), ok: new Uint8Array(groups) }));
  for (let i = 0; i < ids.length; i++) {
    if (ids[i] < 0 || labels[i] === null) continue;
    const c = spec.categories.findIndex((x) => x === labels[i]);
    if (c < 0) continue;
    if (vals.valid && !vals.valid[i]) continue;
    cols[c].v[ids[i]] = vals.values[i];
    cols[c].ok[ids[i]] = vals.values[i] === vals.values[i] ? 1 : 0;
  }
  const out: { name: string; vector: Vector }[] = [{ name: spec.index, vector: makeVector(single(keys.getChild(spec.index) as Vector)) }];
  spec.categories.forEach((c, k) => out.push({ name: String(c), vector: floatVector(cols[k].v, cols[k].ok) }));
  return sortTable(tableOf(out, groups), [spec.index]);
}
