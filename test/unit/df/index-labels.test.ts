/**
 * reset_index, set_index and groupby idxmax / idxmin (issue 24): what the compiler refuses, naming the field,
 * and the kernel's labels where pandas' answers are hand-computed (a group without values, ties
 * across partitions). The cases against pandas are in test/fixtures/df/make_dask_cases.py.
 */
import { tableFromArrays } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { groupby, groupbyAggregate, groupbyChunk, type GroupbySpec } from '../../../worker/kernels/df/groupby';
import { rowCount, rowNumber } from '../../../worker/kernels/df/scan';
import { chain, runLocal } from '../../helpers/local-run';
import { rowsOf } from '../../helpers/df-rows';

type N = [string, string, Record<string, unknown>];
const compile = (nodes: N[]) =>
  compileWorkflow(validateWorkflow({ format: 'gpuflow.workflow/1', nodes: nodes.map(([id, op, params]) => ({ id, op, params })), edges: nodes.slice(1).map((n, i) => ({ source: nodes[i][0], sourcePort: 'out', target: n[0], targetPort: 'df' })) }));
const ts: N = ['ts', 'timeseries', { partitions: 3, rows_per_partition: 50 }];
const col = (t: ReturnType<typeof groupby>, name: string) => Array.from({ length: t.numRows }, (_, i) => t.getChild(name)!.get(i) as unknown);

describe('reset_index, set_index and idxmax / idxmin', () => {
  it('the compiler: idxmax needs its label column, reset_index a new name', () => {
    const agg = { by: ['name'], aggs: [{ column: 'x', agg: 'idxmax' }] };
    expect(() => compile([ts, ['g', 'groupby', agg]])).toThrow(/params\.index \(node 'g'\): idxmax \/ idxmin return the labels of column 'index', which the frame lacks; add it with a reset_index node/);
    expect(() => compile([ts, ['g', 'groupby', { ...agg, aggs: [{ column: 'name', agg: 'idxmin' }] }]])).toThrow(/cannot take the idxmin of column 'name' \(string\)/);
    expect(() => compile([ts, ['r', 'reset_index', { name: 'x' }]])).toThrow(/params\.name \(node 'r'\): column 'x' exists already/);
    expect(() => compile([ts, ['s', 'set_index', { column: 'nope' }]])).toThrow(/params\.column \(node 's'\): .*nope/);
    expect(compile([ts, ['s', 'set_index', { column: 'x' }]]).outputs.s).toMatchObject({ columns: [{ name: 'x', type: 'float' }, { name: 'timestamp' }, { name: 'id' }, { name: 'name' }, { name: 'y' }] });
    const g = compile([ts, ['r', 'reset_index', {}], ['g', 'groupby', agg]]);
    expect(g.outputs.g).toMatchObject({ columns: [{ name: 'name', type: 'string' }, { name: 'x_idxmax', type: 'int' }] });
    expect(compile([ts, ['g', 'groupby', { ...agg, index: 'timestamp' }]]).outputs.g).toMatchObject({ columns: [{ name: 'name', type: 'string' }, { name: 'x_idxmax', type: 'timestamp' }] });
  });

  it('a timeseries source fused into the groupby generates the label column too (fused = unfused)', async () => {
    const doc = chain(['ts', 'timeseries', { partitions: 3, rows_per_partition: 400 }], ['g', 'groupby', { by: ['name'], index: 'id', aggs: [{ column: 'x', agg: 'idxmax' }, { column: 'y', agg: 'idxmin' }] }, 'df']);
    const fused = rowsOf((await runLocal(doc)).g);
    expect(fused.length).toBeGreaterThan(10);
    expect(fused).toEqual(rowsOf((await runLocal(doc, {}, { fuseSources: false })).g));
  });

  it("rowNumber numbers a partition after the counts of those before it, pandas' RangeIndex", () => {
    const p = (xs: number[]) => tableFromArrays({ x: Float64Array.from(xs) });
    const parts = [p([5, 6]), p([]), p([7, 8, 9])];
    const counts = parts.map(rowCount);
    expect(col(rowNumber(parts[2], counts.slice(0, 2), 'index'), 'index')).toEqual([2n, 3n, 4n]);
    expect(rowNumber(parts[2], [], 'i').schema.fields.map((f) => f.name)).toEqual(['i', 'x']);
    expect(() => rowNumber(parts[0], [], 'x')).toThrow(/reset_index: column 'x' exists already/);
  });

  it('labels: the first extreme row in frame order across partials, null for a group without values', () => {
    // k 1: x [3, 9, 9, NaN] at labels [10, 11, 12, 13] -> idxmax 11 (the first 9), idxmin 10; k 2: only NaN -> null.
    const t = tableFromArrays({ k: Int32Array.from([1, 2, 1, 1, 1]), x: Float64Array.from([3, NaN, 9, 9, NaN]), lab: Int32Array.from([10, 20, 11, 12, 13]) });
    const spec: GroupbySpec = { by: ['k'], index: 'lab', aggs: [{ column: 'x', agg: 'idxmax' }, { column: 'x', agg: 'idxmin' }] };
    const whole = groupby(t, spec);
    expect(col(whole, 'x_idxmax')).toEqual([11, null]);
    expect(col(whole, 'x_idxmin')).toEqual([10, null]);
    // Split between the two 9s: the partial of the earlier partition wins the tie.
    const split = groupbyAggregate([groupbyChunk(t.slice(0, 3), spec), groupbyChunk(t.slice(3), spec)], spec);
    expect(col(split, 'x_idxmax')).toEqual([11, null]);
    expect(() => groupby(t, { ...spec, index: undefined })).toThrow(/the frame has no index column 'index' for the labels; add one with reset_index/);
  });
});
