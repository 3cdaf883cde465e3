/**
 * resample by a fixed period, as pandas' df.resample(freq, on=col).agg(...): rows are binned by
 * the start of their period (closed and labelled left; periods that divide a day, so bins start
 * at midnight UTC as pandas' default origin 'start_day' has them), grouped with the groupby tree,
 * and the bins between the first and the last that hold no row are added: sums, counts, sizes and
 * nunique of an empty bin are 0, the other aggregates null (pandas' NaN). Calendar periods
 * ('W', 'M', 'MS': common/df/period.ts) bin by their label instead, and the empty bins between
 * step by the calendar.
 */
import { DataType, type Table, type Vector } from 'apache-arrow';
import { column, int64View, numView } from './columns';
import { floatVector, int64Vector, intVector, timestampVector } from './build';
import { tableOf } from './gather';
import { calendarLabel, calendarNext, periodMs, type Calendar } from '../../../common/df/period';

export { periodMs };

/** The table with column `on` replaced by the start of each row's period (a calendar period: its label). */
export function resampleBin(table: Table, on: string, period: number, calendar?: Calendar): Table {
  const v = numView(column(table, on, 'resample'), on);
  const bins = Float64Array.from(v.values, (x) => (calendar ? calendarLabel(x, calendar) : Math.floor(x / period) * period));
  return tableOf(table.schema.fields.map((f) => ({ name: f.name, vector: f.name === on ? timestampVector(bins, v.valid) : (table.getChild(f.name) as Vector) })), table.numRows);
}

/** A groupby result keyed by bin starts (sorted), with the empty bins between added. */
export function resampleFill(grouped: Table, on: string, period: number, zero: string[], calendar?: Calendar): Table {
  const key = numView(column(grouped, on, 'resample'), on).values;
  const n = grouped.numRows;
  if (n === 0) return grouped;
  const first = key[0];
  let bins: Float64Array;
  let slot: Int32Array;
  if (calendar) {
    const labels: number[] = [];
    for (let b = first; b <= key[n - 1]; b = calendarNext(b, calendar)) labels.push(b);
    const at = new Map(labels.map((b, i) => [b, i]));
    bins = Float64Array.from(labels);
    slot = Int32Array.from(key, (k) => at.get(k) ?? -1);
    if (slot.includes(-1)) throw new Error(`resample: a bin of '${on}' is not a ${calendar} label; was it made by resample-bin with the same calendar?`);
  } else {
    const count = Math.round((key[n - 1] - first) / period) + 1;
    slot = Int32Array.from(key, (k) => Math.round((k - first) / period));
    bins = Float64Array.from({ length: count }, (_, i) => first + i * period);
  }
  const count = bins.length;
  const out: { name: string; vector: Vector }[] = [{ name: on, vector: timestampVector(bins) }];
  for (const f of grouped.schema.fields) {
    if (f.name === on) continue;
    const col = grouped.getChild(f.name) as Vector;
    // Int64 aggregates (sums, extremes) keep every digit beyond 2^53.
    const v = int64View(col) ?? numView(col, f.name);
    const vals = v.values instanceof BigInt64Array ? new BigInt64Array(count) : new Float64Array(count);
    const valid = new Uint8Array(count).fill(zero.includes(f.name) ? 1 : 0);
    for (let i = 0; i < n; i++) {
      vals[slot[i]] = v.values[i];
      valid[slot[i]] = !v.valid || v.valid[i] ? 1 : 0;
    }
    if (vals instanceof BigInt64Array) out.push({ name: f.name, vector: int64Vector(vals, valid) });
    else out.push({ name: f.name, vector: DataType.isInt(f.type) ? intVector(vals, valid) : DataType.isTimestamp(f.type) ? timestampVector(vals, valid) : floatVector(vals, valid) });
  }
  return tableOf(out, count);
}
