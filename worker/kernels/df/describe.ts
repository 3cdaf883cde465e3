/**
 * describe() of one table, as pandas: for each numeric column count, mean, std (ddof 1), min,
 * 25%, 50%, 75%, max, with quantiles by linear interpolation. The result has a 'stat' column
 * naming the rows, then one float column per numeric input column.
 *
 * Exact quantiles need all the rows, so across partitions the caller concatenates first (or the
 * planner samples); describe is a summary for people, not a bulk step.
 */
import { DataType, type Table, type Vector } from 'apache-arrow';
import { numView } from './columns';
import { floatVector, utf8Vector } from './build';
import { tableOf } from './gather';

export const DESCRIBE_STATS = ['count', 'mean', 'std', 'min', '25%', '50%', '75%', 'max'] as const;

function quantile(sorted: Float64Array, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function describe(table: Table): Table {
  const numeric = table.schema.fields.filter((f) => DataType.isInt(f.type) || DataType.isFloat(f.type));
  if (numeric.length === 0) throw new Error(`describe: no numeric columns among ${table.schema.fields.map((f) => f.name).join(', ')}`);
  const out: { name: string; vector: Vector }[] = [{ name: 'stat', vector: utf8Vector([...DESCRIBE_STATS]) }];
  for (const f of numeric) {
    const v = numView(table.getChild(f.name) as Vector, f.name);
    const xs: number[] = [];
    for (let i = 0; i < v.values.length; i++) {
      const x = v.values[i];
      if ((!v.valid || v.valid[i]) && x === x) xs.push(x);
    }
    const s = Float64Array.from(xs).sort();
    const n = s.length;
    let sum = 0;
    for (const x of s) sum += x;
    const mean = n ? sum / n : NaN;
    let m2 = 0;
    for (const x of s) m2 += (x - mean) * (x - mean);
    const std = n > 1 ? Math.sqrt(m2 / (n - 1)) : NaN;
    const stats = [n, mean, std, n ? s[0] : NaN, quantile(s, 0.25), quantile(s, 0.5), quantile(s, 0.75), n ? s[n - 1] : NaN];
    const valid = Uint8Array.from(stats, (x) => (Number.isNaN(x) ? 0 : 1));
    out.push({ name: f.name, vector: floatVector(Float64Array.from(stats), valid) });
  }
  return tableOf(out);
}
