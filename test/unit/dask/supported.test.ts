/**
 * Which dataframe graphs the Dask target takes (main/dask/supported.ts): read_csv and filters of
 * numeric comparisons pass and go to the bridge with the parsed condition (main/dask/graph.ts);
 * a filter with a function call is refused before any connection, naming the node.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { wireGraph } from '../../../main/dask/graph';
import { firstRefusal } from '../../../main/dask/supported';
import { chain, graph } from '../../helpers/local-run';

interface Doc {
  nodes: { id: string; params: Record<string, unknown> }[];
}

/** examples/csv-stations.json with some node params replaced. */
function stations(patch: Record<string, Record<string, unknown>>) {
  const doc = JSON.parse(readFileSync('examples/csv-stations.json', 'utf8')) as Doc;
  for (const n of doc.nodes) n.params = { ...n.params, ...patch[n.id] };
  return compileWorkflow(validateWorkflow(doc, {}));
}

describe('Dask support of CSV sources and filters', () => {
  it('takes the CSV example and sends each filter task its parsed condition', () => {
    const graph = stations({});
    expect(firstRefusal(graph)).toBeNull();
    const filters = wireGraph(graph).tasks.filter((t) => t.op === 'filter');
    expect(filters).toHaveLength(4);
    expect(filters[0]!.spec).toMatchObject({ params: { expr: 'rain_mm > 0', ast: { kind: 'cmp', op: '>', a: { kind: 'col', name: 'rain_mm' }, b: { kind: 'num', value: 0 } } } });
  });

  it('takes and / or / not over numeric comparisons, negative literals included', () => {
    expect(firstRefusal(stations({ rainy: { expr: 'not (temp_c < -2.5) and (rain_mm > 0 or day >= 100)' } }))).toBeNull();
  });

  it('takes string comparisons, in lists, is null and arithmetic in a filter', () => {
    expect(firstRefusal(stations({ rainy: { expr: "station == 'oslo' or station in ['bergen', 'tromso'] and rain_mm * 2 > temp_c + 1 or temp_c is null" } }))).toBeNull();
  });

  it('refuses a string function in a filter, naming node and op', () => {
    expect(firstRefusal(stations({ rainy: { expr: "contains(station, 'os')" } }))?.message).toBe(
      "node 'rainy' (filter): the filter 'contains(station, 'os')' (only comparisons of arithmetic, strings and booleans, in lists and is null on a column, joined by and / or / not) is not supported on Dask yet; run it on this workstation",
    );
  });

  it('takes a CSV timestamp column and a date comparison on it', () => {
    expect(firstRefusal(stations({ read: { types: { day: 'timestamp' } }, rainy: { expr: "day >= '2000-01-05' and rain_mm > 0" } }))).toBeNull();
  });
});

/** The compiled graph of a linear workflow of dataframe nodes. */
const dfChain = (...nodes: [string, string, Record<string, unknown>][]) => compileWorkflow(validateWorkflow(chain(...nodes.map(([id, op, p]): [string, string, Record<string, unknown>, string] => [id, op, p, 'df'])), {}));

describe('Dask support of the column and missing-value dataframe ops, and stated refusals', () => {
  it('takes select, drop, rename, fillna, isna, dropna, head and tail', () => {
    const g = dfChain(
      ['read', 'read_csv', { path: 'test/fixtures/df/people.csv', types: { start: 'string' } }],
      ['sel', 'select', { columns: ['name', 'age', 'salary', 'start'] }],
      ['ren', 'rename', { mapping: { salary: 'pay' } }],
      ['dn', 'dropna', { subset: ['pay'] }],
      ['fill', 'fillna', { value: 0 }],
      ['na', 'isna', {}],
      ['dr', 'drop', { columns: ['start'] }],
      ['hd', 'head', { n: 3 }],
      ['tl', 'tail', { n: 2 }],
    );
    expect(firstRefusal(g)).toBeNull();
  });

  it('takes dropna with thresh (gpuflow_dask reads it), and refuses a time-based rolling window rather than ignore its params', () => {
    expect(firstRefusal(dfChain(['read', 'read_csv', { path: 'test/fixtures/df/people.csv' }], ['dn', 'dropna', { thresh: 2 }]))).toBeNull();
    const g = dfChain(['read', 'read_csv', { path: 'test/fixtures/df/people.csv', types: { start: 'timestamp' } }], ['rl', 'rolling', { window: '2D', on: 'start', aggs: [{ column: 'age', agg: 'sum', as: 'a' }] }]);
    expect(firstRefusal(g)?.message).toBe("node 'rl' (rolling): a time-based rolling window is not supported on Dask yet; run it on this workstation");
  });

  it("refuses the pandas options the bridge does not read (groupby dropna, value_counts normalize / dropna, keep='none', idxmax)", () => {
    const read: [string, string, Record<string, unknown>] = ['read', 'read_csv', { path: 'test/fixtures/df/people.csv' }];
    const refusal = (node: [string, string, Record<string, unknown>]) => firstRefusal(dfChain(read, node))?.message;
    expect(refusal(['g', 'groupby', { by: ['name'], dropna: false, aggs: [{ agg: 'size' }] }])).toMatch(/^node 'g' \(groupby-chunk\): groupby with dropna=False is not supported on Dask yet/);
    expect(refusal(['v', 'value_counts', { column: 'dept', normalize: true }])).toMatch(/^node 'v' \(value-counts-\w+\): value_counts with normalize or dropna=False is not supported on Dask yet/);
    expect(refusal(['d', 'drop_duplicates', { keep: 'none' }])).toMatch(/^node 'd' \(drop-duplicates\): drop_duplicates with keep='none' \(pandas' keep=False\) is not supported on Dask yet/);
    expect(refusal(['i', 'groupby', { by: ['dept'], index: 'id', aggs: [{ column: 'age', agg: 'idxmax' }] }])).toMatch(/node 'i' \(groupby-chunk\): the groupby aggregate 'idxmax' is not supported on Dask/);
    expect(refusal(['g', 'groupby', { by: ['name'], dropna: true, aggs: [{ agg: 'size' }] }])).toBeUndefined();
  });

  it('refuses read_parquet at compile time with the reason (no pyarrow on the workers)', () => {
    const g = dfChain(['pq', 'read_parquet', { path: 'test/fixtures/df/people.parquet' }]);
    expect(firstRefusal(g)?.message).toBe(
      "node 'pq' (read_parquet): the dataframe op 'read-parquet' is not supported on Dask (Parquet is read with pyarrow on a worker, and Debian 12's python3 has no pyarrow (no python3-pyarrow package)); run it on this workstation",
    );
  });

  it('refuses save_npy at compile time with the reason (the file would be written on a worker)', () => {
    const doc = { format: 'gpuflow.workflow/1', nodes: [{ id: 'x', op: 'arange', params: { stop: 10, chunks: 5 } }, { id: 'sv', op: 'save_npy', params: { path: '/tmp/gpuflow-never-written.npy' } }], edges: [{ source: 'x', sourcePort: 'out', target: 'sv', targetPort: 'x' }] };
    expect(firstRefusal(compileWorkflow(validateWorkflow(doc, {})))?.message).toBe(
      "node 'sv' (save_npy): the array op 'npy-save' is not supported on Dask (save_npy writes its file where its task runs, which on a Dask cluster is some worker's file system, not this workstation's); run it on this workstation",
    );
  });

  it('refuses a tuning trial with the reason the search stays local', () => {
    const doc = JSON.parse(readFileSync('examples/tuning-random-search.json', 'utf8')) as unknown;
    expect(firstRefusal(compileWorkflow(validateWorkflow(doc, {})))?.message).toMatch(
      /^node 'search' \([^)]+\): the tuning trial '[^']+' is not supported on Dask \(a trial trains a TensorFlow\.js model in gpuflow's own workers, which a Dask worker does not have\); run it on this workstation$/,
    );
  });

  it('passes bool programs and comparisons inside a float program (the bridge runs both), and refuses a boolean-mask selection naming the node', () => {
    const compile = (d: unknown) => compileWorkflow(validateWorkflow(d, {}));
    const a = ['a', 'arange', { start: 0, stop: 6, chunks: 4 }] as [string, string, Record<string, unknown>];
    expect(firstRefusal(compile(chain(a, ['c', 'scalar_op', { op: 'gt', value: 2 }])))).toBeNull();
    expect(firstRefusal(compile(chain(a, ['c', 'scalar_op', { op: 'gt', value: 2 }], ['m', 'scalar_op', { op: 'mul', value: 1.5 }])))).toBeNull();
    const masked = graph(
      [['a', 'arange', { start: 0, stop: 6, chunks: 4 }], ['c', 'scalar_op', { op: 'gt', value: 2 }], ['m', 'mask_select', {}], ['s', 'reduce', { op: 'sum' }]],
      [['a', 'c', 'x'], ['a', 'm', 'x'], ['c', 'm', 'mask'], ['m', 's', 'x']],
    );
    expect(firstRefusal(compile(masked))?.message).toMatch(/^node '[ms]' .*(data-dependent length|mask)/);
  });
});
