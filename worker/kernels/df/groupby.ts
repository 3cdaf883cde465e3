/**
 * Groupby as dask does it, in three steps that can run in different processes:
 *
 *   groupbyChunk(partition, spec)  -> partial   (one row per group of this partition)
 *   groupbyCombine(partials, spec) -> partial   (merges partials, for tree reductions)
 *   groupbyAggregate(partials, spec) -> result  (merges and finalizes; sorted by the keys)
 *
 * Partials are small Arrow tables: the key columns, then one column per statistic a requested
 * aggregate needs, named `<column>::<stat>`: count, sum, min, max (in the column's own type),
 * mean and m2 (Chan et al.'s parallel variance, so var/std combine exactly), uniq (a list of the
 * distinct values, for nunique), prod, first and last (the group's first / last present value
 * in the column's own type, any type; partials merge in partition order, so they stay the first
 * and last in frame order), vals (every present value, for median), argmax / argmin (the label,
 * from the spec's `index` column, of the group's first row holding its max / min: idxmax /
 * idxmin, ties to the earliest row as pandas), and `::size` (rows per group).
 *
 * Integer columns (int64 and narrower, bools) have their sum, prod, min and max exact in int64,
 * with numpy's wrapping on overflow, as pandas gives them: the float64 accumulators are used when
 * they are provably exact (floatSumsExact), else the rows are added again as bigints. The
 * partials carry these as Int64 columns, merged as bigints.
 *
 * Like pandas: rows whose key is null are dropped (with `dropna: false` a null key is a group of
 * its own, sorted last), nulls and NaN are skipped by every aggregate,
 * var and std use ddof=1 unless told, the sum of no values is 0 and the product 1, and
 * min/max/mean/median/first/last of no values are null.
 */
import { DataType, Field, List, makeData, makeVector, type Data, type Table, type Vector } from 'apache-arrow';
import type { ValueType } from '../../../common/expr/ast';
import { AGG_NAMES, type AggName, type GroupbySpec } from '../../../common/df/groupby-spec';
import { boolView, column, exactIntView, floatSumsExact, int64View, numView, strView, valueTypeOf, type Int64View, type NumView } from './columns';
import { floatVector, int64Vector, intVector, timestampVector, utf8Vector } from './build';
import { concatTables, single, tableOf, takeData, takeTable } from './gather';
import { missingMask } from './missing';
import { factorize, firstRows } from './keys';
import { sortTable } from './sort';

// The spec's types live in common/df/groupby-spec.ts: main reads them while it compiles.
export { AGG_NAMES, type AggName, type AggSpec, type GroupbySpec } from '../../../common/df/groupby-spec';

export type Stat = 'count' | 'sum' | 'min' | 'max' | 'mean' | 'm2' | 'uniq' | 'prod' | 'first' | 'last' | 'vals' | 'argmax' | 'argmin';

export const NEEDS: Record<Exclude<AggName, 'size'>, Stat[]> = {
  sum: ['sum'],
  mean: ['sum', 'count'],
  count: ['count'],
  min: ['min'],
  max: ['max'],
  var: ['count', 'mean', 'm2'],
  std: ['count', 'mean', 'm2'],
  nunique: ['uniq'],
  prod: ['prod'],
  first: ['first'],
  last: ['last'],
  median: ['vals'],
  idxmax: ['max', 'argmax'],
  idxmin: ['min', 'argmin'],
};
/** The extreme each label stat follows. */
const ARG_STATS = [
  { stat: 'argmax', of: 'max' },
  { stat: 'argmin', of: 'min' },
] as const;
export const NUMERIC_ONLY = new Set<AggName>(['sum', 'mean', 'var', 'std', 'prod', 'median']);

/** The exact int64 accumulators of an integer column (the float64 ones still mark presence and feed mean). */
export interface ExactInts {
  sum: BigInt64Array;
  prod: BigInt64Array;
  min: BigInt64Array;
  max: BigInt64Array;
}
const EXACT_STATS = ['sum', 'prod', 'min', 'max'] as const;

/** Accumulators of one aggregated column, one slot per group. */
export interface ColAcc {
  type: ValueType;
  stats: Set<Stat>;
  count: Float64Array;
  sum: Float64Array;
  min: Float64Array;
  max: Float64Array;
  mean: Float64Array;
  m2: Float64Array;
  uniq: Set<string | number>[];
  prod: Float64Array;
  /** vals: every present value per group (median). */
  vals: number[][];
  /** first / last: one row per group, in the column's own type (null where the group has no value). */
  first: Data | null;
  last: Data | null;
  /** argmax / argmin: one label per group (null where the group has no value). */
  argmax: Data | null;
  argmin: Data | null;
  /** Integer columns needing sum / prod / min / max: their exact values. */
  exact: ExactInts | null;
}

/** Merged state of a groupby: the key rows and the accumulators. */
export interface State {
  keys: Table;
  groups: number;
  size: Float64Array | null;
  cols: Map<string, ColAcc>;
}

export function validateSpec(spec: GroupbySpec, where: string): void {
  if (!spec.by || spec.by.length === 0) throw new Error(`${where}: 'by' needs at least one key column`);
  if (!spec.aggs || spec.aggs.length === 0) throw new Error(`${where}: 'aggs' needs at least one aggregate`);
  spec.aggs.forEach((a, i) => {
    if (!AGG_NAMES.includes(a.agg)) throw new Error(`${where}: aggs[${i}].agg is '${String(a.agg)}'; expected one of ${AGG_NAMES.join(', ')}`);
    if (a.agg !== 'size' && !a.column) throw new Error(`${where}: aggs[${i}] (${a.agg}) needs a column`);
  });
}

export function neededStats(spec: GroupbySpec): Map<string, Set<Stat>> {
  const m = new Map<string, Set<Stat>>();
  for (const a of spec.aggs) {
    if (a.agg === 'size') continue;
    const c = a.column as string;
    const s = m.get(c) ?? new Set<Stat>();
    for (const st of NEEDS[a.agg]) s.add(st);
    m.set(c, s);
  }
  return m;
}

export function newAcc(type: ValueType, stats: Set<Stat>, g: number): ColAcc {
  return {
    type,
    stats,
    count: new Float64Array(g),
    sum: new Float64Array(g),
    min: new Float64Array(g).fill(Infinity),
    max: new Float64Array(g).fill(-Infinity),
    mean: new Float64Array(g),
    m2: new Float64Array(g),
    uniq: stats.has('uniq') ? Array.from({ length: g }, () => new Set<string | number>()) : [],
    prod: new Float64Array(stats.has('prod') ? g : 0).fill(1),
    vals: stats.has('vals') ? Array.from({ length: g }, () => []) : [],
    first: null,
    last: null,
    argmax: null,
    argmin: null,
    exact: type === 'int' && EXACT_STATS.some((st) => stats.has(st)) ? { sum: new BigInt64Array(g), prod: new BigInt64Array(g).fill(1n), min: new BigInt64Array(g), max: new BigInt64Array(g) } : null,
  };
}

/** acc.exact from the float64 accumulators, once they are known to be exact (see exactFromRows). */
export function exactFromFloats(acc: ColAcc): void {
  const e = acc.exact;
  if (!e) return;
  const big = (x: number) => (Number.isFinite(x) ? BigInt(x) : 0n);
  for (let g = 0; g < e.sum.length; g++) {
    e.sum[g] = big(acc.sum[g]);
    if (acc.stats.has('prod')) e.prod[g] = big(acc.prod[g]);
    e.min[g] = big(acc.min[g]);
    e.max[g] = big(acc.max[g]);
  }
}

/**
 * acc.exact of an integer column's rows: from the float64 accumulators when those are exact (the
 * common case, no bigint work), else the rows again as bigints. A product is exact when its float
 * is below 2^53 in magnitude: without a zero factor partial products only grow, and with one the
 * answer is 0 either way (NaN, from an overflow times 0, is not below).
 */
function exactFromRows(acc: ColAcc, col: Vector, name: string, ids: Int32Array, x: Float64Array, valid: Uint8Array | null): void {
  const e = acc.exact;
  if (!e) return;
  const prodsExact = !acc.stats.has('prod') || acc.prod.every((p) => Math.abs(p) < 2 ** 53);
  if (!DataType.isInt(col.type) || (prodsExact && floatSumsExact(x, valid))) {
    exactFromFloats(acc);
    return;
  }
  const v = exactIntView(col, name);
  const seen = new Uint8Array(e.sum.length);
  const wantProd = acc.stats.has('prod');
  for (let i = 0; i < ids.length; i++) {
    const g = ids[i];
    if (g < 0 || (v.valid && !v.valid[i])) continue;
    const b = v.values[i];
    // BigInt64Array stores wrap modulo 2^64, as numpy's int64 arithmetic does.
    e.sum[g] += b;
    if (wantProd) e.prod[g] *= b;
    if (!seen[g] || b < e.min[g]) e.min[g] = b;
    if (!seen[g] || b > e.max[g]) e.max[g] = b;
    seen[g] = 1;
  }
}

const sep = '::';

// ---- chunk --------------------------------------------------------------------------------------

function chunkState(table: Table, spec: GroupbySpec): State {
  const where = 'groupby';
  validateSpec(spec, where);
  const { ids: [ids], groups } = factorize([table], [spec.by], where, spec.dropna === false);
  const keys = takeTable(tableOfKeys(table, spec.by), firstRows(ids, groups));
  const n = table.numRows;
  let size: Float64Array | null = null;
  if (spec.aggs.some((a) => a.agg === 'size')) {
    size = new Float64Array(groups);
    for (let i = 0; i < n; i++) if (ids[i] >= 0) size[ids[i]]++;
  }
  const cols = new Map<string, ColAcc>();
  for (const [name, stats] of neededStats(spec)) {
    const col = column(table, name, where);
    const type = valueTypeOf(col.type);
    if (!type) throw new Error(`${where}: column '${name}' has type ${String(col.type)}, which cannot be aggregated`);
    for (const a of spec.aggs) {
      if (a.column !== name) continue;
      const numeric = type === 'int' || type === 'float' || type === 'bool';
      if ((NUMERIC_ONLY.has(a.agg) && !numeric) || (['min', 'max', 'idxmax', 'idxmin'].includes(a.agg) && type === 'string')) {
        throw new Error(`${where}: cannot take the ${a.agg} of column '${name}' (${type})`);
      }
    }
    const acc = newAcc(type === 'bool' ? 'int' : type, stats, groups);
    cols.set(name, acc);
    pickEnds(acc, col, name, ids, groups);
    if (type === 'string') {
      const v = strView(col, name);
      for (let i = 0; i < n; i++) {
        const g = ids[i];
        if (g < 0 || (v.valid && !v.valid[i])) continue;
        acc.count[g]++;
        if (stats.has('uniq')) acc.uniq[g].add(v.dict[v.codes[i]]);
      }
      continue;
    }
    const v = type === 'bool' ? boolAsNum(col, name) : numView(col, name);
    accumulateNumbers(acc, ids, v.values, v.valid, n);
    exactFromRows(acc, col, name, ids, v.values, v.valid);
    pickArgs(acc, ids, int64View(col) ?? v, () => labelsOf(table, spec));
  }
  return { keys, groups, size, cols };
}

/** acc.first / acc.last: each group's first / last row with a present value in `col` (rows in order). */
function pickEnds(acc: ColAcc, col: Vector, name: string, ids: Int32Array, groups: number): void {
  if (!acc.stats.has('first') && !acc.stats.has('last')) return;
  const miss = missingMask(col, name);
  const first = new Int32Array(groups).fill(-1);
  const last = new Int32Array(groups).fill(-1);
  for (let i = 0; i < ids.length; i++) {
    const g = ids[i];
    if (g < 0 || miss[i]) continue;
    if (first[g] < 0) first[g] = i;
    last[g] = i;
  }
  const d = single(col);
  if (acc.stats.has('first')) acc.first = takeData(d, first);
  if (acc.stats.has('last')) acc.last = takeData(d, last);
}

/** The row labels idxmax / idxmin return: the spec's index column. */
function labelsOf(table: Table, spec: GroupbySpec): Vector {
  const name = spec.index ?? 'index';
  const v = table.getChild(name);
  if (!v) throw new Error(`groupby idxmax / idxmin: the frame has no index column '${name}' for the labels; add one with reset_index (pandas' RangeIndex) or name the labels' column in 'index'`);
  return v;
}

/**
 * acc.argmax / argmin: per group, the label of the first row holding the extreme of `v` (values or
 * partials' extremes, in frame order; Int64 compared exactly as bigints, strictly, so a tie keeps
 * the earlier row). `labels` is read only when a label stat is wanted.
 */
function pickArgs(acc: ColAcc, ids: Int32Array, v: NumView | Int64View, labels: () => Vector): void {
  const { values: x, valid } = v;
  for (const { stat } of ARG_STATS) {
    if (!acc.stats.has(stat)) continue;
    const max = stat === 'argmax';
    const rows = new Int32Array(acc.count.length).fill(-1);
    for (let i = 0; i < ids.length; i++) {
      const g = ids[i];
      const xi = x[i];
      if (g < 0 || xi !== xi || (valid && !valid[i])) continue;
      const r = rows[g];
      if (r < 0 || (max ? xi > x[r] : xi < x[r])) rows[g] = i;
    }
    acc[stat] = takeData(single(labels()), rows);
  }
}

function boolAsNum(col: Vector, name: string): { values: Float64Array; valid: Uint8Array | null } {
  const v = boolView(col, name);
  return { values: Float64Array.from(v.values), valid: v.valid };
}

/** One pass for count/sum/min/max/uniq, then (if var/std) a second pass for m2 about each mean. */
function accumulateNumbers(acc: ColAcc, ids: Int32Array, x: Float64Array, valid: Uint8Array | null, n: number): void {
  const { count, sum, min, max, stats } = acc;
  const wantMin = stats.has('min');
  const wantMax = stats.has('max');
  const wantUniq = stats.has('uniq');
  if (stats.has('prod') || stats.has('vals')) {
    const { prod, vals } = acc;
    const wantProd = stats.has('prod');
    const wantVals = stats.has('vals');
    for (let i = 0; i < n; i++) {
      const g = ids[i];
      const v = x[i];
      if (g < 0 || v !== v || (valid && !valid[i])) continue;
      if (wantProd) prod[g] *= v;
      if (wantVals) vals[g].push(v);
    }
  }
  if (!valid && !wantMin && !wantMax && !wantUniq) {
    // The hot path (sum/mean/count of a column without nulls): two adds per row.
    for (let i = 0; i < n; i++) {
      const g = ids[i];
      const v = x[i];
      if (g < 0 || v !== v) continue;
      count[g]++;
      sum[g] += v;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const g = ids[i];
      const v = x[i];
      if (g < 0 || v !== v || (valid && !valid[i])) continue;
      count[g]++;
      sum[g] += v;
      if (v < min[g]) min[g] = v;
      if (v > max[g]) max[g] = v;
      if (wantUniq) acc.uniq[g].add(v);
    }
  }
  if (stats.has('m2')) {
    const { mean, m2 } = acc;
    for (let g = 0; g < mean.length; g++) mean[g] = count[g] > 0 ? sum[g] / count[g] : 0;
    for (let i = 0; i < n; i++) {
      const g = ids[i];
      const v = x[i];
      if (g < 0 || v !== v || (valid && !valid[i])) continue;
      const d = v - mean[g];
      m2[g] += d * d;
    }
  }
}

export function tableOfKeys(table: Table, by: string[]): Table {
  return tableOf(by.map((name) => ({ name, vector: column(table, name, 'groupby') })), table.numRows);
}

// ---- partial tables -----------------------------------------------------------------------------

function typedVector(values: Float64Array, type: ValueType, valid: Uint8Array | null): Vector {
  if (type === 'int') return intVector(values, valid);
  if (type === 'timestamp') return timestampVector(values, valid);
  return floatVector(values, valid);
}

function listVector(sets: Iterable<string | number>[], type: ValueType): Vector {
  const offs = new Int32Array(sets.length + 1);
  const flat: (string | number)[] = [];
  sets.forEach((s, g) => {
    for (const v of s) flat.push(v);
    offs[g + 1] = flat.length;
  });
  const child = type === 'string' ? utf8Vector(flat as string[]) : floatVector(Float64Array.from(flat as number[]));
  const listType = new List(new Field('item', child.type, true));
  return makeVector(makeData({ type: listType, length: sets.length, nullCount: 0, valueOffsets: offs, child: single(child) }));
}

export function stateToTable(st: State): Table {
  const out: { name: string; vector: Vector }[] = st.keys.schema.fields.map((f) => ({ name: f.name, vector: st.keys.getChild(f.name) as Vector }));
  if (st.size) out.push({ name: `${sep}size`, vector: floatVector(st.size) });
  for (const [name, acc] of st.cols) {
    for (const stat of acc.stats) {
      const key = `${name}${sep}${stat}`;
      if (stat === 'uniq') out.push({ name: key, vector: listVector(acc.uniq, acc.type) });
      else if (stat === 'vals') out.push({ name: key, vector: listVector(acc.vals, 'float') });
      else if (stat === 'first' || stat === 'last' || stat === 'argmax' || stat === 'argmin') out.push({ name: key, vector: makeVector(acc[stat] as Data) });
      else if (stat === 'sum' || stat === 'prod') out.push({ name: key, vector: acc.exact ? int64Vector(acc.exact[stat]) : typedVector(acc[stat], 'float', null) });
      else if (stat === 'min' || stat === 'max') {
        const present = presentExtremes(acc, stat);
        out.push({ name: key, vector: acc.exact ? int64Vector(acc.exact[stat], present) : typedVector(acc[stat], acc.type, present) });
      }
      else out.push({ name: key, vector: floatVector(acc[stat]) });
    }
  }
  return tableOf(out, st.groups);
}

/** A group with no values in this column has no min/max: null, not +-Infinity. */
function presentExtremes(acc: ColAcc, stat: 'min' | 'max'): Uint8Array {
  return Uint8Array.from(acc[stat], (v) => (v !== (stat === 'min' ? Infinity : -Infinity) ? 1 : 0));
}

function statCol(t: Table, name: string): { values: Float64Array; valid: Uint8Array | null } {
  const v = t.getChild(name);
  if (!v) throw new Error(`groupby: partial lacks column '${name}'; was it made with the same spec?`);
  return numView(v, name);
}

/** Values of a list column, row by row. */
function listValues(t: Table, name: string): { offs: Int32Array; values: (string | number)[]; type: ValueType } {
  const d = single(t.getChild(name) as Vector);
  const child = makeVector(d.children[0]);
  const type = valueTypeOf(child.type) === 'string' ? 'string' : 'float';
  let values: (string | number)[];
  if (type === 'string') {
    const s = strView(child, name);
    values = Array.from(s.codes, (c) => s.dict[c]);
  } else values = Array.from(numView(child, name).values);
  return { offs: d.valueOffsets as Int32Array, values, type };
}

function statType(t: Table, name: string): ValueType {
  const v = t.getChild(name) as Vector;
  return DataType.isInt(v.type) ? 'int' : DataType.isTimestamp(v.type) ? 'timestamp' : 'float';
}

/** Merges partial tables into one state (Chan's formula for mean/m2, unions for uniq). */
function mergeState(partials: Table[], spec: GroupbySpec): State {
  const where = 'groupby combine';
  validateSpec(spec, where);
  if (partials.length === 0) throw new Error(`${where}: needs at least one partial`);
  const all = concatTables(partials);
  const { ids: [ids], groups } = factorize([all], [spec.by], where, spec.dropna === false);
  const keys = takeTable(tableOfKeys(all, spec.by), firstRows(ids, groups));
  const n = all.numRows;
  let size: Float64Array | null = null;
  if (spec.aggs.some((a) => a.agg === 'size')) {
    size = new Float64Array(groups);
    const s = statCol(all, `${sep}size`).values;
    for (let i = 0; i < n; i++) if (ids[i] >= 0) size[ids[i]] += s[i];
  }
  const cols = new Map<string, ColAcc>();
  for (const [name, stats] of neededStats(spec)) {
    let type: ValueType = 'float';
    if (stats.has('min')) type = statType(all, `${name}${sep}min`);
    else if (stats.has('max')) type = statType(all, `${name}${sep}max`);
    else if (stats.has('sum')) type = statType(all, `${name}${sep}sum`);
    else if (stats.has('prod')) type = statType(all, `${name}${sep}prod`);
    const acc = newAcc(type, stats, groups);
    cols.set(name, acc);
    const get = (s: Stat) => (stats.has(s) ? statCol(all, `${name}${sep}${s}`) : null);
    const count = get('count');
    const sum = get('sum');
    const min = get('min');
    const max = get('max');
    const mean = get('mean');
    const m2 = get('m2');
    for (let i = 0; i < n; i++) {
      const g = ids[i];
      if (g < 0) continue;
      if (sum) acc.sum[g] += sum.values[i];
      if (min && (!min.valid || min.valid[i]) && min.values[i] < acc.min[g]) acc.min[g] = min.values[i];
      if (max && (!max.valid || max.valid[i]) && max.values[i] > acc.max[g]) acc.max[g] = max.values[i];
      if (count) {
        const nb = count.values[i];
        const na = acc.count[g];
        if (m2 && mean && nb > 0) {
          const nn = na + nb;
          const delta = mean.values[i] - acc.mean[g];
          acc.mean[g] += (delta * nb) / nn;
          acc.m2[g] += m2.values[i] + (delta * delta * na * nb) / nn;
        }
        acc.count[g] = na + nb;
      }
    }
    if (stats.has('prod')) {
      const p = statCol(all, `${name}${sep}prod`).values;
      for (let i = 0; i < n; i++) if (ids[i] >= 0) acc.prod[ids[i]] *= p[i];
    }
    if (acc.exact) mergeExact(acc.exact, all, name, ids, stats);
    // The partials are in partition order and each label is its partition's first extreme row, so the earliest partial wins a tie.
    for (const { stat, of } of ARG_STATS) {
      if (!stats.has(stat)) continue;
      const ext = column(all, `${name}${sep}${of}`, where);
      const one = newAcc(acc.type, new Set<Stat>([stat]), groups);
      pickArgs(one, ids, int64View(ext) ?? numView(ext, name), () => column(all, `${name}${sep}${stat}`, where));
      acc[stat] = one[stat];
    }
    if (stats.has('vals')) {
      const l = listValues(all, `${name}${sep}vals`);
      for (let i = 0; i < n; i++) {
        const g = ids[i];
        if (g < 0) continue;
        for (let k = l.offs[i]; k < l.offs[i + 1]; k++) acc.vals[g].push(l.values[k] as number);
      }
    }
    // The partials are in partition order, so the first present row of a group among them is its first in the frame.
    for (const end of ['first', 'last'] as const) {
      if (!stats.has(end)) continue;
      const v = column(all, `${name}${sep}${end}`, where);
      const rows = new Int32Array(groups).fill(-1);
      const miss = missingMask(v, name);
      for (let i = 0; i < n; i++) if (ids[i] >= 0 && !miss[i] && (end === 'last' || rows[ids[i]] < 0)) rows[ids[i]] = i;
      acc[end] = takeData(single(v), rows);
    }
    if (stats.has('uniq')) {
      const l = listValues(all, `${name}${sep}uniq`);
      acc.type = l.type === 'string' ? 'string' : acc.type;
      for (let i = 0; i < n; i++) {
        const g = ids[i];
        if (g < 0) continue;
        for (let k = l.offs[i]; k < l.offs[i + 1]; k++) acc.uniq[g].add(l.values[k]);
      }
    }
  }
  return { keys, groups, size, cols };
}

/** The exact sums / products / extremes of integer partials (Int64 columns), merged as bigints. */
function mergeExact(e: ExactInts, all: Table, name: string, ids: Int32Array, stats: Set<Stat>): void {
  for (const stat of EXACT_STATS) {
    if (!stats.has(stat)) continue;
    const key = `${name}${sep}${stat}`;
    const v = int64View(column(all, key, 'groupby combine'));
    if (!v) throw new Error(`groupby combine: partial column '${key}' is not Int64; was it made by this version?`);
    const seen = new Uint8Array(e.sum.length);
    const acc = e[stat];
    for (let i = 0; i < ids.length; i++) {
      const g = ids[i];
      if (g < 0 || (v.valid && !v.valid[i])) continue;
      const b = v.values[i];
      if (stat === 'sum') acc[g] += b;
      else if (stat === 'prod') acc[g] *= b;
      else if (!seen[g] || (stat === 'min' ? b < acc[g] : b > acc[g])) acc[g] = b;
      seen[g] = 1;
    }
  }
}

// ---- finalize -----------------------------------------------------------------------------------

/** pandas' median: the middle value, or the mean of the two middle ones. */
function median(xs: number[]): number {
  const s = Float64Array.from(xs).sort();
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function finalize(st: State, spec: GroupbySpec): Table {
  const ddof = spec.ddof ?? 1;
  const out: { name: string; vector: Vector }[] = st.keys.schema.fields.map((f) => ({ name: f.name, vector: st.keys.getChild(f.name) as Vector }));
  const g = st.groups;
  for (const a of spec.aggs) {
    const name = a.as ?? (a.agg === 'size' ? 'size' : `${a.column}_${a.agg}`);
    if (a.agg === 'size') {
      out.push({ name, vector: intVector(st.size as Float64Array) });
      continue;
    }
    const acc = st.cols.get(a.column as string) as ColAcc;
    if (a.agg === 'first' || a.agg === 'last') {
      out.push({ name, vector: makeVector(acc[a.agg] as Data) });
      continue;
    }
    if (a.agg === 'idxmax' || a.agg === 'idxmin') {
      out.push({ name, vector: makeVector(acc[a.agg === 'idxmax' ? 'argmax' : 'argmin'] as Data) });
      continue;
    }
    if (acc.exact && (a.agg === 'sum' || a.agg === 'prod' || a.agg === 'min' || a.agg === 'max')) {
      const present = a.agg === 'min' || a.agg === 'max' ? presentExtremes(acc, a.agg) : null;
      out.push({ name, vector: int64Vector(acc.exact[a.agg], present) });
      continue;
    }
    const values = new Float64Array(g);
    const valid = new Uint8Array(g).fill(1);
    let type: ValueType = 'float';
    for (let k = 0; k < g; k++) {
      const c = acc.count[k];
      switch (a.agg) {
        case 'sum': values[k] = acc.sum[k]; break;
        case 'count': values[k] = c; break;
        case 'nunique': values[k] = acc.uniq[k].size; break;
        case 'prod': values[k] = acc.prod[k]; break;
        case 'median': if (acc.vals[k].length > 0) values[k] = median(acc.vals[k]); else valid[k] = 0; break;
        case 'mean': if (c > 0) values[k] = acc.sum[k] / c; else valid[k] = 0; break;
        case 'min': if (acc.min[k] !== Infinity) values[k] = acc.min[k]; else valid[k] = 0; break;
        case 'max': if (acc.max[k] !== -Infinity) values[k] = acc.max[k]; else valid[k] = 0; break;
        case 'var': case 'std': {
          if (c - ddof > 0) {
            const v = acc.m2[k] / (c - ddof);
            values[k] = a.agg === 'std' ? Math.sqrt(v) : v;
          } else valid[k] = 0;
          break;
        }
      }
    }
    if (a.agg === 'count' || a.agg === 'nunique') type = 'int';
    else if (a.agg === 'sum' || a.agg === 'prod') type = acc.type === 'int' ? 'int' : 'float';
    else if (a.agg === 'min' || a.agg === 'max') type = acc.type;
    out.push({ name, vector: typedVector(values, type, valid) });
  }
  return sortTable(tableOf(out, g), spec.by);
}

// ---- the public steps ---------------------------------------------------------------------------

/** Per-partition partial aggregates (a small Arrow table; see the module comment). */
export function groupbyChunk(table: Table, spec: GroupbySpec): Table {
  return stateToTable(chunkState(table, spec));
}

/** Several partials merged into one partial (for tree reductions). */
export function groupbyCombine(partials: Table[], spec: GroupbySpec): Table {
  return stateToTable(mergeState(partials, spec));
}

/** Partials merged and finalized: key columns then one column per aggregate, sorted by keys. */
export function groupbyAggregate(partials: Table[], spec: GroupbySpec): Table {
  return finalize(mergeState(partials, spec), spec);
}

/** Groupby of one table: aggregate(chunk(table)). */
export function groupby(table: Table, spec: GroupbySpec): Table {
  return finalize(chunkState(table, spec), spec);
}
