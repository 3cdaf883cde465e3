/**
 * Typed df task params (common/df/op-params.ts): one schema per op, the one main's compiler emits
 * against (emitDf is typed by it) and the one the worker's kernel table parses with. Checked here:
 * the worker's table holds exactly those schemas, and every df task the compiler emits for a
 * broad workflow parses with its op's schema.
 */
import { describe, expect, it } from 'vitest';
import { DF_OP_PARAMS, dfParamsOrNull, isDfOp } from '../../../common/df/op-params';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { DF_OPS, runDfOp } from '../../../worker/kernels/df/task-ops';

const node = (id: string, op: string, params: Record<string, unknown>) => ({ id, op, params });
const edge = (source: string, target: string, targetPort = 'df') => ({ source, sourcePort: 'out', target, targetPort });

describe('typed df params', () => {
  it("the worker's kernel table uses the shared schemas, one per op, no op without one", () => {
    expect(Object.keys(DF_OPS).sort()).toEqual(Object.keys(DF_OP_PARAMS).sort());
    for (const [op, def] of Object.entries(DF_OPS)) if (isDfOp(op)) expect(def.params, op).toBe(DF_OP_PARAMS[op]);
  });

  it('every df task main emits parses with its schema: sources, fused groupby, sort, merge, windows, reductions', () => {
    const doc = {
      format: 'gpuflow.workflow/1',
      nodes: [
        node('ts', 'timeseries', { partitions: 3, rows_per_partition: 50, columns: ['x', 'timestamp', 'name', 'id'] }),
        node('g', 'groupby', { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }, { agg: 'size' }], split_every: 2 }),
        node('s', 'sort', { by: ['x', 'id'], ascending: [false, true] }),
        node('m', 'merge', { on: ['name'], how: 'left', strategy: 'hash' }),
        node('r', 'rolling', { window: 3, aggs: [{ column: 'x', agg: 'sum' }] }),
        node('p', 'pivot_table', { index: 'id', columns: 'name', values: 'x', aggfunc: 'max', categories: ['Alice', 'Bob'] }),
        node('v', 'value_counts', { column: 'name' }),
        node('d', 'describe', {}),
        node('f', 'filter', { expr: 'x > 0' }),
        node('na', 'dropna', {}),
      ],
      edges: [edge('ts', 'g'), edge('ts', 's'), edge('ts', 'm', 'left'), edge('g', 'm', 'right'), edge('ts', 'r'), edge('ts', 'p'), edge('ts', 'v'), edge('ts', 'd'), edge('ts', 'f'), edge('f', 'na')],
    };
    const seen = new Set<string>();
    for (const t of compileWorkflow(validateWorkflow(doc)).tasks.values()) {
      if (t.spec.kind !== 'df') continue;
      const { op, params } = t.spec;
      expect(isDfOp(op), `${t.key}: df op '${op}' has no schema`).toBe(true);
      if (isDfOp(op)) expect(dfParamsOrNull(op, params), `${t.key} (${op}): ${JSON.stringify(params)}`).not.toBeNull();
      seen.add(op);
    }
    for (const op of ['timeseries-groupby-chunk', 'groupby-combine', 'groupby-aggregate', 'sort-sample', 'sort-splitters', 'range-split', 'sort-part', 'hash-split', 'gather-part', 'join', 'tail', 'rolling', 'pivot', 'value-counts-chunk', 'value-counts-aggregate', 'describe', 'filter', 'dropna']) {
      expect(seen, op).toContain(op);
    }
  });

  it('params that do not match their schema are refused', async () => {
    await expect(runDfOp('sort-sample', { by: ['x'], count: 0 }, [])).rejects.toThrow(/df sort-sample: takes 1 input/);
    expect(dfParamsOrNull('head', { n: -1 })).toBeNull();
    expect(dfParamsOrNull('select', { cols: ['x'] })).toBeNull();
    expect(dfParamsOrNull('join', { spec: { how: 'sideways' } })).toBeNull();
    expect(dfParamsOrNull('join', { spec: { how: 'left', on: ['k'] } })).toEqual({ spec: { how: 'left', on: ['k'] } });
  });
});
