/**
 * What the compiler refuses for the dataframe nodes added for issue 18 (merge how right, describe
 * percentiles, quantile, nunique, isna / fillna / dropna, rolling, resample, pivot_table, the
 * string and timestamp functions): each error names the node, the field and what is wrong,
 * before any task runs.
 */
import { tableFromArrays } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { timestampVector } from '../../../worker/kernels/df/build';
import { numView } from '../../../worker/kernels/df/columns';
import { tableOf } from '../../../worker/kernels/df/gather';
import { rolling } from '../../../worker/kernels/df/window';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';

type N = [string, string, Record<string, unknown>];
function wf(nodes: N[], edges?: [string, string, string][]): unknown {
  const es = edges ?? nodes.slice(1).map((n, i) => [nodes[i][0], n[0], 'df'] as [string, string, string]);
  return { format: 'gpuflow.workflow/1', nodes: nodes.map(([id, op, params]) => ({ id, op, params })), edges: es.map(([s, t, p]) => ({ source: s, sourcePort: 'out', target: t, targetPort: p })) };
}
const compile = (doc: unknown) => compileWorkflow(validateWorkflow(doc));
const ts: N = ['ts', 'timeseries', { partitions: 4, rows_per_partition: 100 }];
const one: N = ['small', 'timeseries', { partitions: 1, rows_per_partition: 10 }];

describe('compile-time checks of the new dataframe nodes', () => {
  it("map: a string or number column, a mapping of one value kind", () => {
    expect(() => compile(wf([ts, ['m', 'map', { column: 'timestamp', mapping: { a: 1 } }]]))).toThrow(/params\.column \(node 'm'\): column 'timestamp' is timestamp; map takes a string or number column/);
    expect(() => compile(wf([ts, ['m', 'map', { column: 'name', mapping: { Bob: 1, Ann: 'x' } }]]))).toThrow(/params\.mapping \(node 'm'\): mixes number and string values/);
    expect(() => compile(wf([ts, ['m', 'map', { column: 'name', mapping: ['Bob'] }]]))).toThrow(/params\.mapping \(node 'm'\): must be an object/);
    expect(compile(wf([ts, ['m', 'map', { column: 'name', mapping: { Bob: 1.5, Ann: null }, as: 'w' }]])).outputs.m).toMatchObject({ columns: expect.arrayContaining([{ name: 'w', type: 'float' }]) });
  });

  it('merge how right: no broadcast, a shared key of one type', () => {
    const m = (params: Record<string, unknown>) => wf([ts, one, ['m', 'merge', params]], [['ts', 'm', 'left'], ['small', 'm', 'right']]);
    expect(() => compile(m({ how: 'right', on: ['name'], strategy: 'broadcast' }))).toThrow(/params\.strategy \(node 'm'\): broadcast cannot do a right join/);
    const g = compile(m({ how: 'right', on: ['name'] }));
    const keys = [...g.tasks.values()].map((t) => t.key);
    expect(keys.some((k) => k.startsWith('m/broadcast-join'))).toBe(false);
    expect(keys.some((k) => k.startsWith('m/join'))).toBe(true);
  });

  it('describe percentiles and quantile q must lie in [0, 1]; nunique and isna name known columns', () => {
    expect(() => compile(wf([ts, ['d', 'describe', { percentiles: [0.5, 1.5] }]]))).toThrow(/node 'd'/);
    expect(() => compile(wf([ts, ['q', 'df_quantile', { q: [-0.1] }]]))).toThrow(/node 'q'/);
    expect(() => compile(wf([ts, ['u', 'nunique', { columns: ['nmae'] }]]))).toThrow(/params\.columns \(node 'u'\): unknown column 'nmae'/);
    expect(() => compile(wf([ts, ['i', 'isna', { columns: ['z'] }]]))).toThrow(/params\.columns \(node 'i'\): unknown column 'z'/);
  });

  it('fillna: a value of a column type, and columns that can hold it', () => {
    expect(() => compile(wf([ts, ['f', 'fillna', { value: [1] }]]))).toThrow(/params\.value \(node 'f'\): must be a number, a string or a boolean/);
    expect(() => compile(wf([ts, ['f', 'fillna', { value: 'none', columns: ['x'] }]]))).toThrow(/params\.columns \(node 'f'\): column 'x' is float and cannot hold "none"/);
    expect(() => compile(wf([ts, ['f', 'fillna', { value: 0.5, columns: ['id'] }]]))).toThrow(/column 'id' is int and cannot hold 0\.5/);
    expect(() => compile(wf([ts, ['f', 'dropna', { subset: ['q'] }]]))).toThrow(/params\.subset \(node 'f'\): unknown column 'q'/);
  });

  it("rolling over time: '2h' needs on, a timestamp column; the task refuses an unsorted time", async () => {
    const agg = [{ column: 'x', agg: 'sum' }];
    expect(() => compile(wf([ts, ['r', 'rolling', { window: '2h', aggs: agg }]]))).toThrow(/params\.on \(node 'r'\): a time window \('2h'\) needs on/);
    expect(() => compile(wf([ts, ['r', 'rolling', { window: '2 hours', on: 'timestamp', aggs: agg }]]))).toThrow(/params\.window \(node 'r'\): window '2 hours' is not a period/);
    expect(() => compile(wf([ts, ['r', 'rolling', { window: '2h', on: 'x', aggs: agg }]]))).toThrow(/params\.on \(node 'r'\): column 'x' is float, not a timestamp/);
    expect(() => compile(wf([ts, ['r', 'rolling', { window: 3, on: 'timestamp', aggs: agg }]]))).toThrow(/params\.on \(node 'r'\): is for a time window/);
    const t = tableFromArrays({ at: Float64Array.of(0, 7200000, 3600000), v: Float64Array.of(1, 2, 3) });
    const stamped = tableOf([{ name: 'at', vector: timestampVector(numView(t.getChild('at')!, 'at').values) }, { name: 'v', vector: t.getChild('v')! }]);
    expect(() => rolling([], stamped, { window: 1, on: 'at', windowMs: 3600000, cols: [{ column: 'v', agg: 'sum', as: 's' }] })).toThrow(/column 'at' is not sorted ascending \(1970-01-01T01:00:00\.000Z after 1970-01-01T02:00:00\.000Z\)/);
  });

  it('rolling: a whole window, numeric columns, known aggregates', () => {
    expect(() => compile(wf([ts, ['r', 'rolling', { window: 0, aggs: [{ column: 'x', agg: 'mean' }] }]]))).toThrow(/params\.window \(node 'r'\)/);
    expect(() => compile(wf([ts, ['r', 'rolling', { window: 3, aggs: [{ column: 'name', agg: 'mean' }] }]]))).toThrow(/params\.aggs\[0\]\.column \(node 'r'\): column 'name' is string, not a number/);
    expect(() => compile(wf([ts, ['r', 'rolling', { window: 3, aggs: [{ column: 'x', agg: 'median' }] }]]))).toThrow(/params\.aggs\[0\] \(node 'r'\): must be .*sum, mean, min, max, std, var, count/);
    // Partition i reads the tails of the i partitions before it.
    const g = compile(wf([ts, ['r', 'rolling', { window: 3, aggs: [{ column: 'x', agg: 'mean' }] }]]));
    expect([...g.tasks.values()].find((t) => t.key === 'r/rolling(3)')!.deps).toEqual(['r/rolling-tail(0)', 'r/rolling-tail(1)', 'r/rolling-tail(2)', 'ts/part(3)']);
  });

  it('resample: a timestamp column and a period that divides a day', () => {
    expect(() => compile(wf([ts, ['s', 'resample', { on: 'x', freq: '1h', aggs: [{ column: 'x', agg: 'mean' }] }]]))).toThrow(/params\.on \(node 's'\): column 'x' is float, not a timestamp/);
    expect(() => compile(wf([ts, ['s', 'resample', { on: 'timestamp', freq: '7h', aggs: [{ column: 'x', agg: 'mean' }] }]]))).toThrow(/params\.freq \(node 's'\): freq '7h' must divide a day/);
    expect(() => compile(wf([ts, ['s', 'resample', { on: 'timestamp', freq: '1 week', aggs: [{ column: 'x', agg: 'mean' }] }]]))).toThrow(/params\.freq \(node 's'\): freq '1 week' is not a period/);
  });

  it('pivot_table: numeric values, categories of the columns column type', () => {
    const p = (params: Record<string, unknown>) => wf([ts, ['p', 'pivot_table', { index: 'id', columns: 'name', values: 'x', ...params }]]);
    expect(() => compile(p({ categories: [1, 2] }))).toThrow(/params\.categories \(node 'p'\): must be a list of the string values of column 'name'/);
    expect(() => compile(p({ values: 'name', categories: ['Alice'] }))).toThrow(/params\.values \(node 'p'\): column 'name' is string, not a number/);
    expect(() => compile(p({ categories: ['id'] }))).toThrow(/differ from the index column 'id'/);
  });

  it('string and timestamp functions are type-checked', () => {
    expect(() => compile(wf([ts, ['a', 'assign', { column: 'z', expr: 'lower(x)' }]]))).toThrow(/params\.expr \(node 'a'\): lower\(\) needs a string/);
    expect(() => compile(wf([ts, ['a', 'assign', { column: 'z', expr: 'contains(name, x)' }]]))).toThrow(/needs text to be a string literal/);
    expect(() => compile(wf([ts, ['a', 'assign', { column: 'z', expr: "split(name, '', 0)" }]]))).toThrow(/needs a non-empty separator/);
    expect(() => compile(wf([ts, ['a', 'assign', { column: 'z', expr: 'hour(x)' }]]))).toThrow(/hour\(\) needs a timestamp/);
    expect(() => compile(wf([ts, ['a', 'assign', { column: 'z', expr: 'contains(name)' }]]))).toThrow(/expected 2 argument in contains/);
  });
});
