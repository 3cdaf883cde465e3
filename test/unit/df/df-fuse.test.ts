/**
 * Source fusion (main/engine/compile/df-fuse.ts): a groupby's chunk step reading a timeseries
 * partition becomes one task that generates only the columns it reads. The oracle is the unfused
 * graph (fuseSources: false), whose answers must be identical: same rows, same row order in each
 * partition, so the same sums to the last bit.
 */
import { describe, expect, it } from 'vitest';
import { compileWorkflow, type CompileOptions } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { groupbyColumns, timeseriesGroupbyChunk } from '../../../worker/kernels/df/timeseries-groupby';
import { groupbyChunk } from '../../../worker/kernels/df/groupby';
import { timeseriesPartition } from '../../../worker/kernels/df/timeseries';
import { runLocal } from '../../helpers/local-run';
import { rowsOf } from '../../helpers/df-rows';

type N = [string, string, Record<string, unknown>];
function wf(nodes: N[], edges: [string, string, string][]): unknown {
  return { format: 'gpuflow.workflow/1', nodes: nodes.map(([id, op, params]) => ({ id, op, params })), edges: edges.map(([s, t, p]) => ({ source: s, sourcePort: 'out', target: t, targetPort: p })) };
}
const ts = (params: Record<string, unknown> = {}): N => ['ts', 'timeseries', { partitions: 5, rows_per_partition: 300, seed: 9, ...params }];
const gb = (id: string, by: string[], aggs: unknown[]): N => [id, 'groupby', { by, aggs, split_every: 2 }];
const ops = (doc: unknown, opts: CompileOptions = {}) => [...compileWorkflow(validateWorkflow(doc), opts).tasks.values()].map((t) => (t.spec.kind === 'df' ? t.spec.op : t.spec.kind));
const count = (list: string[], op: string) => list.filter((o) => o === op).length;

describe('dataframe source fusion', () => {
  const doc = wf([ts(), gb('g', ['name'], [{ column: 'x', agg: 'mean' }, { column: 'id', agg: 'std' }, { agg: 'size' }])], [['ts', 'g', 'df']]);

  it('turns timeseries -> groupby-chunk into one task per partition, keeping key and node', () => {
    const c = compileWorkflow(validateWorkflow(doc));
    const fused = [...c.tasks.values()].filter((t) => t.spec.kind === 'df' && t.spec.op === 'timeseries-groupby-chunk');
    expect(fused.map((t) => t.key)).toEqual([0, 1, 2, 3, 4].map((i) => `g/groupby-chunk(${i})`));
    expect(fused.every((t) => t.node === 'g' && t.deps.length === 0 && t.op === 'timeseries+groupby-chunk')).toBe(true);
    expect(fused[2].spec).toEqual({ kind: 'df', op: 'timeseries-groupby-chunk', params: { source: { seed: 9, partition: 2, rows: 300 }, spec: { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }, { column: 'id', agg: 'std' }, { agg: 'size' }], ddof: 1 } } });
    expect(count(ops(doc), 'timeseries')).toBe(0);
    expect(count(ops(doc, { fuseSources: false }), 'timeseries')).toBe(5);
    expect(count(ops(doc, { fuseSources: false }), 'groupby-chunk')).toBe(5);
  });

  it('gives exactly the unfused answer', async () => {
    const a = rowsOf((await runLocal(doc)).g);
    const b = rowsOf((await runLocal(doc, {}, { fuseSources: false })).g);
    expect(a).toHaveLength(26);
    expect(a).toEqual(b);
  });

  it('keeps the source where another node reads it, and fuses only the groupby', async () => {
    const two = wf([ts(), gb('g', ['id'], [{ column: 'y', agg: 'max' }]), ['h', 'head', { n: 3 }]], [['ts', 'g', 'df'], ['ts', 'h', 'df']]);
    const list = ops(two);
    expect(count(list, 'timeseries')).toBe(5);
    expect(count(list, 'timeseries-groupby-chunk')).toBe(5);
    const r = await runLocal(two);
    expect(rowsOf(r.g)).toEqual(rowsOf((await runLocal(two, {}, { fuseSources: false })).g));
    expect(rowsOf(r.h)).toHaveLength(3);
  });

  it('leaves other sources and other readers alone', () => {
    const filtered = wf([ts(), ['f', 'filter', { expr: 'x > 0' }], gb('g', ['name'], [{ column: 'x', agg: 'sum' }])], [['ts', 'f', 'df'], ['f', 'g', 'df']]);
    expect(count(ops(filtered), 'timeseries-groupby-chunk')).toBe(0);
    expect(count(ops(filtered), 'groupby-chunk')).toBe(5);
  });

  it('the fused chunk generates only the columns the groupby reads, with the same partial', () => {
    const spec = { by: ['name'], aggs: [{ column: 'y', agg: 'var' as const }] };
    expect(groupbyColumns(spec)).toEqual(['name', 'y']);
    expect(groupbyColumns({ by: ['id', 'name'], aggs: [{ agg: 'size' as const }] })).toEqual(['id', 'name']);
    const fused = timeseriesGroupbyChunk({ seed: 4, partition: 3, rows: 500 }, spec);
    const plain = groupbyChunk(timeseriesPartition(4, 3, 500), spec);
    expect(fused.schema.fields.map((f) => f.name)).toEqual(plain.schema.fields.map((f) => f.name));
    expect(fused.toArray().map((r) => r.toJSON())).toEqual(plain.toArray().map((r) => r.toJSON()));
  });
});
