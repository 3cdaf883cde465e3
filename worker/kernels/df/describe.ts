/**
 * Summaries of one table, as pandas: describe (for each numeric column count, mean, std (ddof 1),
 * min, the percentiles, max), quantile (of each numeric column at each q) and nunique (distinct
 * values per column). Quantiles interpolate linearly, as numpy's and pandas' default; missing
 * values (null, NaN) are left out.
 *
 * Exact quantiles need all the rows, so across partitions the caller concatenates first (or the
 * planner samples); these are summaries for people, not bulk steps.
 */
import { DataType, type Table, type Vector } from 'apache-arrow';
import { numView, strView, boolView, valueTypeOf } from './columns';
import { floatVector, intVector, utf8Vector } from './build';
import { tableOf } from './gather';

export const DESCRIBE_STATS = ['count', 'mean', 'std', 'min', '25%', '50%', '75%', 'max'] as const;
export const DEFAULT_PERCENTILES = [0.25, 0.5, 0.75];

export function quantileOf(sorted: Float64Array, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** pandas' row name of a percentile: 0.25 -> '25%', 0.333 -> '33.3%'. */
export function percentileName(p: number): string {
  return `${Number((p * 100).toFixed(8))}%`;
}

/** The percentiles describe reports: those given, with the median added, sorted, each in [0, 1]. */
export function describePercentiles(ps: number[] = DEFAULT_PERCENTILES): number[] {
  for (const p of ps) if (!(p >= 0 && p <= 1)) throw new Error(`describe: percentile ${p} is outside [0, 1]`);
  return [...new Set([...ps, 0.5])].sort((a, b) => a - b);
}

function numericFields(table: Table, where: string) {
  const numeric = table.schema.fields.filter((f) => DataType.isInt(f.type) || DataType.isFloat(f.type));
  if (numeric.length === 0) throw new Error(`${where}: no numeric columns among ${table.schema.fields.map((f) => f.name).join(', ')}`);
  return numeric;
}

/** The present values of a numeric column, sorted. */
function sortedValues(table: Table, name: string): Float64Array {
  const v = numView(table.getChild(name) as Vector, name);
  const xs: number[] = [];
  for (let i = 0; i < v.values.length; i++) {
    const x = v.values[i];
    if ((!v.valid || v.valid[i]) && x === x) xs.push(x);
  }
  return Float64Array.from(xs).sort();
}

export function describe(table: Table, percentiles?: number[]): Table {
  const ps = describePercentiles(percentiles);
  const out: { name: string; vector: Vector }[] = [{ name: 'stat', vector: utf8Vector(['count', 'mean', 'std', 'min', ...ps.map(percentileName), 'max']) }];
  for (const f of numericFields(table, 'describe')) {
    const s = sortedValues(table, f.name);
    const n = s.length;
    let sum = 0;
    for (const x of s) sum += x;
    const mean = n ? sum / n : NaN;
    let m2 = 0;
    for (const x of s) m2 += (x - mean) * (x - mean);
    const std = n > 1 ? Math.sqrt(m2 / (n - 1)) : NaN;
    const stats = [n, mean, std, n ? s[0] : NaN, ...ps.map((p) => quantileOf(s, p)), n ? s[n - 1] : NaN];
    const valid = Uint8Array.from(stats, (x) => (Number.isNaN(x) ? 0 : 1));
    out.push({ name: f.name, vector: floatVector(Float64Array.from(stats), valid) });
  }
  return tableOf(out);
}

/** Column 'q', then one float column per numeric column: its quantile at each q (pandas' df.quantile(qs)). */
export function quantile(table: Table, qs: number[]): Table {
  for (const q of qs) if (!(q >= 0 && q <= 1)) throw new Error(`quantile: q ${q} is outside [0, 1]`);
  const out: { name: string; vector: Vector }[] = [{ name: 'q', vector: floatVector(Float64Array.from(qs)) }];
  for (const f of numericFields(table, 'quantile')) {
    const s = sortedValues(table, f.name);
    const vals = Float64Array.from(qs, (q) => quantileOf(s, q));
    out.push({ name: f.name, vector: floatVector(vals, Uint8Array.from(vals, (x) => (Number.isNaN(x) ? 0 : 1))) });
  }
  return tableOf(out);
}

/** Distinct present values of each column (of `subset`): columns 'column' and 'nunique' (pandas' df.nunique()). */
export function nunique(table: Table, subset?: string[]): Table {
  const cols = subset && subset.length ? subset : table.schema.fields.map((f) => f.name);
  const counts = cols.map((name) => {
    const v = table.getChild(name) as Vector | null;
    if (!v) throw new Error(`nunique: unknown column '${name}'; available columns: ${table.schema.fields.map((f) => f.name).join(', ')}`);
    const t = valueTypeOf(v.type);
    const seen = new Set<string | number>();
    if (t === 'string') {
      const s = strView(v, name);
      for (let i = 0; i < s.codes.length; i++) if (!s.valid || s.valid[i]) seen.add(s.dict[s.codes[i]]);
    } else if (t === 'bool') {
      const b = boolView(v, name);
      for (let i = 0; i < b.values.length; i++) if (!b.valid || b.valid[i]) seen.add(b.values[i]);
    } else if (t !== null) {
      const x = numView(v, name);
      for (let i = 0; i < x.values.length; i++) if ((!x.valid || x.valid[i]) && x.values[i] === x.values[i]) seen.add(x.values[i]);
    } else throw new Error(`nunique: column '${name}' is ${String(v.type)}`);
    return seen.size;
  });
  return tableOf([{ name: 'column', vector: utf8Vector(cols) }, { name: 'nunique', vector: intVector(Float64Array.from(counts)) }]);
}
