/**
 * The GPU checks of the dataframe kernels: filter, groupby chunk and hash join on the device
 * (worker/kernels/df/gpu.ts -> native/src/cuda/df_*.cu) against the js kernels on generated
 * tables with nulls, NaN, many groups, duplicate and null join keys (the device join is SQL's,
 * nulls: 'never'; pandas' null-matching default is left to the host), differing dictionaries and
 * empty partitions. Filter and join must agree row for row; groupby to 1e-9 relative (the device
 * adds in another order). Every case must also run on the device, not fall back: a fallback is a
 * failure here unless the case is one the device is documented not to take.
 *
 * Shared by test/gpu/df.test.ts (vitest, GPU machine), bench/native/device-run.ts (bundled with
 * esbuild, no node_modules there) and test/unit/df/gpu-marshal.test.ts (against a js fake of the
 * kernels, to check the marshalling here). Imports nothing from vitest.
 */
import type { Table } from 'apache-arrow';
import type { DfAddon } from '../../native/df';
import { boolVector, floatVector, int64Vector, intVector, stringVector, timestampVector } from '../../worker/kernels/df/build';
import { filterNative, groupbyChunkNative, hashJoinNative } from '../../worker/kernels/df/gpu';
import { groupby, groupbyAggregate, type GroupbySpec } from '../../worker/kernels/df/groupby';
import { tableOf } from '../../worker/kernels/df/gather';
import { hashJoin, type JoinSpec } from '../../worker/kernels/df/join';
import { filter } from '../../worker/kernels/df/ops';
import { checkList, type CheckResult } from './cuda-checks';
import { timeseriesGroupbyChunk, timeseriesGroupbyNative, type TimeseriesSource } from '../../worker/kernels/df/timeseries-groupby';

/** One df check and why it failed (null: passed). */
export type DfCheckResult = CheckResult;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const NAMES = ['Alice', 'Bob', 'Charlie', 'Dan', 'Edith', 'Frank', 'George', 'Hannah'];

/**
 * n rows: id (int, `groups` distinct, some null), name (dictionary string, some null), x (float,
 * some null and NaN), y (float), flag (bool), t (timestamp).
 */
export function dfTable(rows: number, seed: number, groups = 50, names = NAMES): Table {
  const n = Math.round(rows);
  const r = rng(seed);
  const id = new Float64Array(n);
  const idOk = new Uint8Array(n).fill(1);
  const codes = new Int32Array(n);
  const nameOk = new Uint8Array(n).fill(1);
  const x = new Float64Array(n);
  const xOk = new Uint8Array(n).fill(1);
  const y = new Float64Array(n);
  const flag = new Uint8Array(n);
  const t = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    id[i] = Math.floor(r() * groups) - 3;
    if (r() < 0.03) idOk[i] = 0;
    codes[i] = Math.floor(r() * names.length);
    if (r() < 0.04) nameOk[i] = 0;
    x[i] = Math.round((r() * 2 - 1) * 1e6) / 1e3;
    if (r() < 0.05) xOk[i] = 0;
    if (r() < 0.02) x[i] = NaN;
    y[i] = r() * 100;
    flag[i] = r() < 0.3 ? 1 : 0;
    t[i] = Date.UTC(2000, 0, 1) + Math.floor(r() * 3650) * 86400000 + 3600000;
  }
  return tableOf([
    { name: 'id', vector: intVector(id, idOk) },
    { name: 'name', vector: stringVector(codes, names, nameOk) },
    { name: 'x', vector: floatVector(x, xOk) },
    { name: 'y', vector: floatVector(y) },
    { name: 'flag', vector: boolVector(flag) },
    { name: 't', vector: timestampVector(t) },
  ]);
}

/** Rows as plain values (bigints as numbers, dates as ms), for comparisons. */
export function plainRows(t: Table): Record<string, unknown>[] {
  const names = t.schema.fields.map((f) => f.name);
  const cols = names.map((n) => t.getChild(n)!);
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < t.numRows; i++) {
    const r: Record<string, unknown> = {};
    names.forEach((n, j) => {
      const v = cols[j].get(i) as unknown;
      r[n] = v === undefined ? null : typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.getTime() : v;
    });
    out.push(r);
  }
  return out;
}

/** First difference between two tables (same columns, rows, values to `rel`), or null. */
export function tableDiff(got: Table, want: Table, rel = 0): string | null {
  const gn = got.schema.fields.map((f) => `${f.name}:${String(f.type)}`).join(', ');
  const wn = want.schema.fields.map((f) => `${f.name}:${String(f.type)}`).join(', ');
  if (gn !== wn) return `columns [${gn}], want [${wn}]`;
  if (got.numRows !== want.numRows) return `${got.numRows} rows, want ${want.numRows}`;
  const g = plainRows(got);
  const w = plainRows(want);
  for (let i = 0; i < w.length; i++) {
    for (const k of Object.keys(w[i])) {
      const a = g[i][k];
      const b = w[i][k];
      if (typeof a === 'number' && typeof b === 'number') {
        if (Number.isNaN(a) && Number.isNaN(b)) continue;
        if (Math.abs(a - b) <= rel * Math.max(1, Math.abs(b))) continue;
      } else if (a === b) continue;
      return `row ${i} column ${k}: ${String(a)}, want ${String(b)}`;
    }
  }
  return null;
}

export const FILTERS = [
  'x > 0.5',
  'x * 2 - y / 3 >= -10 and not flag',
  'name == "Bob" or name in ["Edith", "Zed"]',
  'name != "Alice" and id % 3 == 1',
  'name < "D" or x is null',
  'id not in [1, 2, 3] and y < 50',
  'x is not null and abs(x) < 100',
  'round(y, 1) == 50.5 or log(y) > 4.5',
  'year(t) == 2005 and month(t) <= 6',
  'not (x > 0 or id > 10)',
  'flag == true and name is null',
  't > "2003-06-01"',
  // pandas' isin is never null: a null (or NaN) is not in the list, so `not in` keeps it.
  'name not in ["Bob", "Edith"]',
  'x not in [0.5] and id in [4, 7]',
  'flag in [true] or id not in [1, 2]',
];

const GROUPBYS: { name: string; spec: GroupbySpec; table: (scale: number) => Table }[] = [
  { name: 'by name: mean x (the benchmark)', spec: { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }] }, table: (k) => dfTable(20000 * k, 1) },
  {
    name: 'by name: every aggregate, nulls and NaN',
    spec: { by: ['name'], aggs: ['sum', 'mean', 'count', 'min', 'max', 'std', 'var'].map((agg) => ({ column: 'x', agg: agg as 'sum' })).concat([{ column: 'y', agg: 'sum' }, { agg: 'size' } as never]) },
    table: (k) => dfTable(30000 * k, 2),
  },
  { name: 'by id and name (two keys combined)', spec: { by: ['id', 'name'], aggs: [{ column: 'y', agg: 'var' }, { column: 'x', agg: 'min' }, { column: 't', agg: 'max' }] }, table: (k) => dfTable(30000 * k, 3) },
  { name: 'many groups (global atomics)', spec: { by: ['id'], aggs: [{ column: 'x', agg: 'std' }, { column: 'y', agg: 'mean' }, { agg: 'size' }] }, table: (k) => dfTable(200000 * k, 4, 150000 * k) },
  { name: 'by a bool key, int and bool values', spec: { by: ['flag'], aggs: [{ column: 'id', agg: 'sum' }, { column: 'flag', agg: 'sum' }, { column: 'id', agg: 'max' }] }, table: (k) => dfTable(5000 * k, 5) },
  { name: 'empty partition', spec: { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }, { agg: 'size' }] }, table: () => dfTable(0, 6) },
];

function joinSides(seed: number, nl: number, nr: number, keys: number, names = NAMES): [Table, Table] {
  const left = dfTable(nl, seed, keys);
  // The right side: other rows, a dictionary in another order with a name the left lacks.
  const right = dfTable(nr, seed + 100, keys, ['Zed', ...[...names].reverse()]).select(['id', 'name', 'y']);
  return [left.select(['id', 'name', 'x']), right];
}

const JOINS: { name: string; spec: JoinSpec; sides: (scale: number) => [Table, Table] }[] = [
  ...(['inner', 'left', 'outer'] as const).map((how) => ({ name: `${how} on an int key with duplicates and nulls`, spec: { nulls: 'never' as const, how, on: ['id'] }, sides: (k: number) => joinSides(7, 3000 * k, 500 * k, 40) })),
  ...(['inner', 'left', 'outer'] as const).map((how) => ({ name: `${how} on two keys (int, string with differing dictionaries)`, spec: { nulls: 'never' as const, how, on: ['id', 'name'] }, sides: (k: number) => joinSides(8, 4000 * k, 2000 * k, 30) })),
  { name: 'outer on a string key, right names only partly on the left', spec: { nulls: 'never', how: 'outer', leftOn: ['name'], rightOn: ['name'] }, sides: () => joinSides(9, 300, 200, 10) },
  { name: 'left join with an empty right side', spec: { nulls: 'never', how: 'left', on: ['id'] }, sides: () => { const [l, r] = joinSides(10, 500, 10, 20); return [l, r.slice(0, 0)]; } },
  { name: 'outer join with an empty left side', spec: { nulls: 'never', how: 'outer', on: ['id'] }, sides: () => { const [l, r] = joinSides(11, 10, 500, 20); return [l.slice(0, 0), r]; } },
  { name: 'inner join, many matches per key (result larger than both sides)', spec: { nulls: 'never', how: 'inner', on: ['name'] }, sides: (k) => joinSides(12, 2000 * k, 2000 * k, 5) },
];

/**
 * Every check; `cuda` is the device kernels or why they are missing (then one failing entry says
 * so). `scale` shrinks the tables (the unit test runs the js fake at 0.05; the GPU runs at 1).
 */
/** The fused timeseries source + groupby chunk (device generation vs the js generator + js groupby). */
export const TIMESERIES_GROUPBYS: { name: string; source: TimeseriesSource; spec: GroupbySpec }[] = [
  { name: 'name, mean x (the seed workload)', source: { seed: 0, partition: 3, rows: 200_000 }, spec: { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }] } },
  {
    name: 'name, every aggregate of x and y',
    source: { seed: 7, partition: 0, rows: 100_000 },
    spec: { by: ['name'], aggs: [{ column: 'x', agg: 'sum' }, { column: 'x', agg: 'mean' }, { column: 'y', agg: 'count' }, { column: 'x', agg: 'min' }, { column: 'x', agg: 'max' }, { column: 'x', agg: 'std' }, { column: 'y', agg: 'var' }, { agg: 'size' }] },
  },
  { name: 'id, mean y and min / max x (600 slots)', source: { seed: 2 ** 32 + 5, partition: 11, rows: 150_000 }, spec: { by: ['id'], aggs: [{ column: 'y', agg: 'mean' }, { column: 'x', agg: 'min' }, { column: 'x', agg: 'max' }] } },
  { name: 'name and id, count and sum of id', source: { seed: 3, partition: 1, rows: 120_000 }, spec: { by: ['name', 'id'], aggs: [{ column: 'id', agg: 'sum' }, { column: 'x', agg: 'count' }, { column: 'id', agg: 'std' }] } },
  { name: 'an empty partition', source: { seed: 3, partition: 0, rows: 0 }, spec: { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }] } },
];

export async function runDfChecks(kernels: { addon: DfAddon } | { unavailable: string }, scale = 1): Promise<DfCheckResult[]> {
  if ('unavailable' in kernels) return [{ name: 'cuda df kernels', error: `unavailable: ${kernels.unavailable}` }];
  const cuda = kernels.addon;
  const { results, check } = checkList();
  const table = dfTable(Math.round(50000 * scale), 42);
  for (const expr of FILTERS) {
    await check(`filter ${expr}`, async () => {
      const got = await filterNative(cuda.cudaDfFilter, table, expr);
      if ('unsupported' in got) return `fell back: ${got.unsupported}`;
      return tableDiff(got, filter(table, expr));
    });
  }
  await check('filter of an empty partition', async () => {
    const t = table.slice(0, 0);
    const got = await filterNative(cuda.cudaDfFilter, t, 'x > 0');
    return 'unsupported' in got ? got.unsupported : tableDiff(got, filter(t, 'x > 0'));
  });
  for (const g of GROUPBYS) {
    await check(`groupby ${g.name}`, async () => {
      const t = g.table(scale);
      const partial = await groupbyChunkNative(cuda.cudaDfGroupby, t, g.spec);
      if ('unsupported' in partial) return `fell back: ${partial.unsupported}`;
      return tableDiff(groupbyAggregate([partial], g.spec), groupby(t, g.spec), 1e-9);
    });
  }
  await check('groupby nunique falls back (not on the device)', async () => {
    const r = await groupbyChunkNative(cuda.cudaDfGroupby, table, { by: ['name'], aggs: [{ column: 'id', agg: 'nunique' }] });
    return 'unsupported' in r ? null : 'nunique ran on the device; the partial would lack its value lists';
  });
  for (const agg of ['prod', 'first', 'last', 'median'] as const) {
    await check(`groupby ${agg} falls back (not on the device)`, async () => {
      const r = await groupbyChunkNative(cuda.cudaDfGroupby, table, { by: ['name'], aggs: [{ column: 'id', agg }] });
      return 'unsupported' in r ? null : `${agg} ran on the device, whose partials lack its statistic`;
    });
  }
  for (const g of TIMESERIES_GROUPBYS) {
    await check(`timeseries groupby ${g.name}`, async () => {
      const src = { ...g.source, rows: Math.round(g.source.rows * scale) };
      const partial = await timeseriesGroupbyNative(cuda.cudaDfTimeseriesGroupby, src, g.spec);
      if ('unsupported' in partial) return `fell back: ${partial.unsupported}`;
      return tableDiff(groupbyAggregate([partial], g.spec), groupbyAggregate([timeseriesGroupbyChunk(src, g.spec)], g.spec), 1e-9);
    });
  }
  await check('timeseries groupby by timestamp falls back (not on the device)', async () => {
    const r = await timeseriesGroupbyNative(cuda.cudaDfTimeseriesGroupby, { seed: 1, partition: 0, rows: 100 }, { by: ['timestamp'], aggs: [{ column: 'x', agg: 'sum' }] });
    return 'unsupported' in r ? null : 'a timestamp key ran on the device';
  });
  for (const j of JOINS) {
    await check(`join ${j.name}`, async () => {
      const [l, r] = j.sides(scale);
      const got = await hashJoinNative(cuda.cudaDfJoin, l, r, j.spec);
      if ('unsupported' in got) return `fell back: ${got.unsupported}`;
      return tableDiff(got, hashJoin(l, r, j.spec));
    });
  }
  await check('join with null keys and pandas\' default (nulls match) is left to the host', async () => {
    const [l, r] = joinSides(7, 300, 50, 40);
    const got = await hashJoinNative(cuda.cudaDfJoin, l, r, { how: 'inner', on: ['id'] });
    return 'unsupported' in got ? null : 'the device joined null keys, which it cannot match';
  });
  for (const how of ['leftsemi', 'leftanti'] as const) {
    await check(`join ${how} is left to the host`, async () => {
      const [l, r] = joinSides(8, 300, 50, 40);
      const got = await hashJoinNative(cuda.cudaDfJoin, l, r, { how, on: ['id'], nulls: 'never' });
      return 'unsupported' in got ? null : `the device ran a ${how} join, which it does not have`;
    });
  }
  await check('int64 keys beyond 2^53 are left to the host (the device keys float64 views)', async () => {
    const big = (xs: bigint[]) => tableOf([{ name: 'k', vector: int64Vector(BigInt64Array.from(xs)) }]);
    const two = 2n ** 53n;
    const got = await hashJoinNative(cuda.cudaDfJoin, big([two, two + 1n]), big([two + 1n]), { how: 'inner', on: ['k'], nulls: 'never' });
    if (!('unsupported' in got)) return 'the device joined keys beyond 2^53, which its float64 offsets round';
    const g = await groupbyChunkNative(cuda.cudaDfGroupby, big([two, two + 1n]), { by: ['k'], aggs: [{ agg: 'size' }] });
    return 'unsupported' in g ? null : 'the device grouped keys beyond 2^53, which its float64 offsets round';
  });
  await check('int64 sums beyond 2^53 are left to the host; below it the device sums are the exact int64 ones', async () => {
    const kv = (vs: bigint[]) => tableOf([{ name: 'k', vector: int64Vector(BigInt64Array.from(vs, (_, i) => BigInt(i % 2))) }, { name: 'v', vector: int64Vector(BigInt64Array.from(vs)) }]);
    const two = 2n ** 53n;
    const spec: GroupbySpec = { by: ['k'], aggs: [{ column: 'v', agg: 'sum' }, { column: 'v', agg: 'max' }] };
    const over = await groupbyChunkNative(cuda.cudaDfGroupby, kv([two - 2n, 5n, 3n]), spec);
    if (!('unsupported' in over)) return 'the device summed int64 values past 2^53, which its float64 adds round';
    const t = kv([2n ** 51n + 1n, -7n, 2n ** 51n + 3n, 11n, 2n ** 51n - 5n, 4n]);
    const under = await groupbyChunkNative(cuda.cudaDfGroupby, t, spec);
    if ('unsupported' in under) return `fell back: ${under.unsupported}`;
    const got = groupbyAggregate([under], spec);
    const sum = got.getChild('v_sum')?.get(0) as unknown;
    if (sum !== 3n * 2n ** 51n - 1n) return `sum of group 0 is ${String(sum)}, not ${3n * 2n ** 51n - 1n}`;
    return tableDiff(got, groupby(t, spec));
  });
  return results;
}
