/**
 * The row-order nodes (df_cumsum ... ffill, bfill, shift, df_diff): what the compiler refuses,
 * naming node and field, and the task plan (one carry per partition but the last; partition i
 * reads the carries before it, bfill and a negative shift the ones after it). Their values are
 * checked against pandas in the dask cases (test/fixtures/df/make_dask_cases.py).
 */
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';

type N = [string, string, Record<string, unknown>];
const wf = (nodes: N[]) => ({ format: 'gpuflow.workflow/1', nodes: nodes.map(([id, op, params]) => ({ id, op, params })), edges: nodes.slice(1).map((n, i) => ({ source: nodes[i][0], sourcePort: 'out', target: n[0], targetPort: 'df' })) });
const compile = (n: N) => compileWorkflow(validateWorkflow(wf([['ts', 'timeseries', { partitions: 3, rows_per_partition: 10 }], n])));
const deps = (n: N, node = n[0]) => [...compile(n).tasks.values()].filter((t) => t.node === node).map((t) => `${t.key.split('/')[1]} <- ${t.deps.map((d) => d.split('/')[1]).join(' ')}`).sort();

describe('row-order dataframe nodes', () => {
  it('refuse a text column for cum ops and diff, an unknown column and periods 0', () => {
    expect(() => compile(['c', 'df_cumsum', { columns: ['name'] }])).toThrow(/params\.columns \(node 'c'\): column 'name' is string, not a number/);
    expect(() => compile(['c', 'df_diff', { columns: ['nmae'] }])).toThrow(/params\.columns \(node 'c'\): unknown column 'nmae'/);
    expect(() => compile(['s', 'shift', { periods: 0 }])).toThrow(/params\.periods \(node 's'\): must be a whole number other than 0/);
    expect(() => compile(['s', 'shift', { columns: ['x'], suffix: '' }])).not.toThrow();
  });

  it('plan: carries flow forward for cum ops and ffill, backward for bfill; shift lends tails (heads when negative)', () => {
    expect(deps(['c', 'df_cumsum', {}])).toEqual(['cumsum(0) <- part(0)', 'cumsum(1) <- cumsum-carry(0) part(1)', 'cumsum(2) <- cumsum-carry(0) cumsum-carry(1) part(2)', 'cumsum-carry(0) <- part(0)', 'cumsum-carry(1) <- part(1)']);
    expect(deps(['b', 'bfill', {}])).toEqual(['bfill(0) <- part(0) bfill-carry(1) bfill-carry(2)', 'bfill(1) <- part(1) bfill-carry(2)', 'bfill(2) <- part(2)', 'bfill-carry(1) <- part(1)', 'bfill-carry(2) <- part(2)']);
    expect(deps(['s', 'shift', { periods: -2 }])).toEqual(['shift(0) <- part(0) shift-head(1) shift-head(2)', 'shift(1) <- part(1) shift-head(2)', 'shift(2) <- part(2)', 'shift-head(1) <- part(1)', 'shift-head(2) <- part(2)']);
    expect(deps(['d', 'df_diff', { periods: 3 }])).toContain('diff(2) <- diff-tail(0) diff-tail(1) part(2)');
  });

  it('repartition: neighbours concatenated (a group of one passes its key on), or even row slices', () => {
    expect(deps(['r', 'repartition', { npartitions: 2 }])).toEqual(['repartition(1) <- part(1) part(2)']);
    expect(compile(['r', 'repartition', { npartitions: 2 }]).outputs.r).toMatchObject({ keys: ['ts/part(0)', 'r/repartition(1)'] });
    expect(deps(['r', 'repartition', { npartitions: 5 }])).toEqual(['repartition(0,0) <- part(0)', 'repartition(1,0) <- part(1)', 'repartition(1,1) <- part(1)', 'repartition(2,0) <- part(2)', 'repartition(2,1) <- part(2)']);
    expect(() => compile(['r', 'repartition', { npartitions: 0 }])).toThrow(/node 'r'/);
  });
});
