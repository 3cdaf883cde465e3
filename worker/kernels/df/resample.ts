/**
 * resample by a fixed period, as pandas' df.resample(freq, on=col).agg(...): rows are binned by
 * the start of their period (closed and labelled left; periods that divide a day, so bins start
 * at midnight UTC as pandas' default origin 'start_day' has them), grouped with the groupby tree,
 * and the bins between the first and the last that hold no row are added: sums, counts, sizes and
 * nunique of an empty bin are 0, the other aggregates null (pandas' NaN).
 */
import { DataType, type Table, type Vector } from 'apache-arrow';
import { column, numView } from './columns';
import { floatVector, intVector, timestampVector } from './build';
import { tableOf } from './gather';
import { periodMs } from '../../../common/df/period';

export { periodMs };

/** The table with column `on` replaced by the start of each row's period. */
export function resampleBin(table: Table, on: string, period: number): Table {
  const v = numView(column(table, on, 'resample'), on);
  const bins = Float64Array.from(v.values, (x) => Math.floor(x / period) * period);
  return tableOf(table.schema.fields.map((f) => ({ name: f.name, vector: f.name === on ? timestampVector(bins, v.valid) : (table.getChild(f.name) as Vector) })), table.numRows);
}

/** A groupby result keyed by bin starts (sorted), with the empty bins between added. */
export function resampleFill(grouped: Table, on: string, period: number, zero: string[]): Table {
  const key = numView(column(grouped, on, 'resample'), on).values;
  const n = grouped.numRows;
  if (n === 0) return grouped;
  const first = key[0];
  const count = Math.round((key[n - 1] - first) / period) + 1;
  const slot = Int32Array.from(key, (k) => Math.round((k - first) / period));
  const bins = Float64Array.from({ length: count }, (_, i) => first + i * period);
  const out: { name: string; vector: Vector }[] = [{ name: on, vector: timestampVector(bins) }];
  for (const f of grouped.schema.fields) {
    if (f.name === on) continue;
    const v = numView(grouped.getChild(f.name) as Vector, f.name);
    const vals = new Float64Array(count);
    const valid = new Uint8Array(count).fill(zero.includes(f.name) ? 1 : 0);
    for (let i = 0; i < n; i++) {
      vals[slot[i]] = v.values[i];
      valid[slot[i]] = !v.valid || v.valid[i] ? 1 : 0;
    }
    out.push({ name: f.name, vector: DataType.isInt(f.type) ? intVector(vals, valid) : DataType.isTimestamp(f.type) ? timestampVector(vals, valid) : floatVector(vals, valid) });
  }
  return tableOf(out, count);
}
