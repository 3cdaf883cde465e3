/**
 * The cost of exact int64 groupby aggregates (issue 24): one partition's groupby chunk, sum and
 * max of a column, for a float64 column, an Int64 column whose sums stay below 2^53 (the float64
 * accumulators are provably exact there and are used), and one with values beyond 2^53 (the rows
 * are added again as bigints).
 *
 *   npx tsx bench/dataframes/int64-groupby.ts [--rows 2000000] [--reps 7]
 */
import { floatVector, int32Vector, int64Vector } from '../../worker/kernels/df/build';
import { tableOf } from '../../worker/kernels/df/gather';
import { groupbyChunk } from '../../worker/kernels/df/groupby';
import { arg, machine, save, timeMs } from './common';

const n = arg('rows', 2_000_000);
const reps = arg('reps', 7);
const k = Int32Array.from({ length: n }, (_, i) => (i * 7919) % 100);
const small = BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 31) % 1000));
const table = tableOf([
  { name: 'k', vector: int32Vector(k) },
  { name: 'x', vector: floatVector(Float64Array.from(small, Number)) },
  { name: 'small', vector: int64Vector(small) },
  { name: 'big', vector: int64Vector(BigInt64Array.from(small, (v) => 2n ** 53n + v)) },
], n);
const spec = (c: string) => ({ by: ['k'], aggs: [{ column: c, agg: 'sum' as const }, { column: c, agg: 'max' as const }] });

const result: Record<string, unknown> = { machine: machine(), rows: n, groups: 100, reps };
for (const c of ['x', 'small', 'big']) result[c] = (await timeMs(reps, () => groupbyChunk(table, spec(c)))).median;
console.log(result);
console.log('wrote', save('dataframes-int64-groupby.json', result));
