/**
 * What the compiler refuses or plans for dataframe nodes before any task runs: schema errors
 * naming node, field and the available columns; port types; globs; the shape of the groupby tree
 * and of the merge plans. Also the write_parquet -> read_parquet round trip and from_array.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { matchSegment } from '../../../main/engine/ops/df/files';
import { runLocal } from '../../helpers/local-run';
import { rowsOf } from '../../helpers/df-rows';

type N = [string, string, Record<string, unknown>];
function wf(nodes: N[], edges?: [string, string, string][]): unknown {
  const es = edges ?? nodes.slice(1).map((n, i) => [nodes[i][0], n[0], 'df'] as [string, string, string]);
  return { format: 'gpuflow.workflow/1', nodes: nodes.map(([id, op, params]) => ({ id, op, params })), edges: es.map(([s, t, p]) => ({ source: s, sourcePort: 'out', target: t, targetPort: p })) };
}
const compile = (doc: unknown) => compileWorkflow(validateWorkflow(doc));
const ts: N = ['ts', 'timeseries', { partitions: 4, rows_per_partition: 100 }];

describe('dataframe compile-time checks', () => {
  it('an expression naming a missing column fails naming node, field and available columns', () => {
    expect(() => compile(wf([ts, ['keep', 'filter', { expr: 'x > 0.5 and nmae == "Bob"' }]]))).toThrow(
      /nodes\[1\]\.params\.expr \(node 'keep'\): unknown column 'nmae'; available columns: timestamp, id, name, x, y/,
    );
    // Checked against the schema as it is after earlier nodes: y was dropped.
    expect(() => compile(wf([ts, ['d', 'drop', { columns: ['y'] }], ['z', 'assign', { column: 'z', expr: 'x + y' }]]))).toThrow(
      /params\.expr \(node 'z'\): unknown column 'y'; available columns: timestamp, id, name, x/,
    );
    expect(() => compile(wf([ts, ['z', 'assign', { column: 'z', expr: 'name * 2' }]]))).toThrow(/node 'z'.*column 'name' \(string\) is not a number/);
  });

  it('column names in params are checked with the same message shape', () => {
    expect(() => compile(wf([ts, ['g', 'groupby', { by: ['nam'], aggs: [{ column: 'x', agg: 'mean' }] }]]))).toThrow(
      /nodes\[1\]\.params\.by \(node 'g'\): unknown column 'nam'; available columns: timestamp, id, name, x, y/,
    );
    expect(() => compile(wf([ts, ['g', 'groupby', { by: ['name'], aggs: [{ column: 'x', agg: 'mode' }] }]]))).toThrow(/params\.aggs\[0\]\.agg \(node 'g'\): must be one of sum, mean/);
    expect(() => compile(wf([ts, ['g', 'groupby', { by: ['id'], aggs: [{ column: 'name', agg: 'mean' }] }]]))).toThrow(/params\.aggs\[0\]\.agg \(node 'g'\): cannot take the mean of column 'name' \(string\)/);
    expect(() => compile(wf([ts, ['s', 'sort', { by: ['x', 'q'] }]]))).toThrow(/params\.by \(node 's'\): unknown column 'q'/);
    const two = wf([ts, ['t2', 'timeseries', { partitions: 2, rows_per_partition: 10 }], ['r', 'rename', { mapping: { id: 'key' } }], ['m', 'merge', { on: ['id'] }]], [['t2', 'r', 'df'], ['ts', 'm', 'left'], ['r', 'm', 'right']]);
    expect(() => compile(two)).toThrow(/params\.on \(node 'm'\): unknown column 'id'; available columns: timestamp, key, name, x, y/);
    const clash = wf([ts, ['t2', 'timeseries', { partitions: 1, rows_per_partition: 10 }], ['m', 'merge', { left_on: ['id'], right_on: ['name'] }]], [['ts', 'm', 'left'], ['t2', 'm', 'right']]);
    expect(() => compile(clash)).toThrow(/params\.left_on \(node 'm'\): key 'id' is int on the left but 'name' is string on the right/);
  });

  it('an array output into a dataframe input is refused by validation, naming the edge and both types', () => {
    const doc = wf([['a', 'zeros', { shape: [10], chunks: [5] }], ['g', 'groupby', { by: ['value'], aggs: [{ agg: 'size' }] }]]);
    expect(() => validateWorkflow(doc)).toThrow(/wrong port type: a\.out gives array but g\.df takes dataframe/);
  });

  it('groupby is a tree: chunk per partition, combines of split_every, one aggregate', () => {
    const c = compile(wf([['ts', 'timeseries', { partitions: 30, rows_per_partition: 10 }], ['g', 'groupby', { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }], split_every: 8 }]]));
    const ops = [...c.tasks.values()].map((t) => (t.spec.kind === 'df' ? t.spec.op : t.spec.kind));
    // The chunk step reads the timeseries straight from its source (compile/df-fuse.ts).
    expect(ops.filter((o) => o === 'timeseries-groupby-chunk')).toHaveLength(30);
    expect(ops.filter((o) => o === 'timeseries' || o === 'groupby-chunk')).toHaveLength(0);
    expect(ops.filter((o) => o === 'groupby-combine')).toHaveLength(4);
    expect(ops.filter((o) => o === 'groupby-aggregate')).toHaveLength(1);
    expect([...c.tasks.values()].every((t) => t.resource === 'any')).toBe(true);
    expect(c.outputs.g).toEqual({ kind: 'table', keys: ['g/groupby-aggregate'], columns: [{ name: 'name', type: 'string' }, { name: 'x_mean', type: 'float' }] });
  });

  it('merge: broadcast when the right side is one partition, a hash shuffle otherwise', () => {
    const plan = (rightParts: number, how = 'inner', strategy = 'auto') => {
      const c = compile(wf([ts, ['r', 'timeseries', { partitions: rightParts, rows_per_partition: 5, columns: ['id', 'y'] }], ['m', 'merge', { on: ['id'], how, strategy }]], [['ts', 'm', 'left'], ['r', 'm', 'right']]));
      return [...c.tasks.values()].filter((t) => t.node === 'm').map((t) => (t.spec.kind === 'df' ? t.spec.op : ''));
    };
    expect(plan(1)).toEqual(Array(4).fill('broadcast-join'));
    const hashed = plan(3);
    expect(hashed.filter((o) => o === 'hash-split')).toHaveLength(7);
    expect(hashed.filter((o) => o === 'gather-part')).toHaveLength(8);
    expect(hashed.filter((o) => o === 'join')).toHaveLength(4);
    expect(plan(1, 'outer').filter((o) => o === 'join')).toHaveLength(4);
    // A broadcast of a right side of 3 partitions concatenates it once, then joins each left partition with it.
    for (const how of ['inner', 'left', 'leftsemi', 'leftanti']) expect(plan(3, how, 'broadcast')).toEqual(['concat', ...Array(4).fill('broadcast-join')]);
    expect(plan(3, 'leftsemi').filter((o) => o === 'join')).toHaveLength(4);
    expect(() => plan(3, 'outer', 'broadcast')).toThrow(/params\.strategy \(node 'm'\): broadcast cannot do an outer join/);
  });

  it('globs match * and ? within one name, not a leading dot; no file is an error naming the field', () => {
    expect(matchSegment('part.*.csv', 'part.12.csv')).toBe(true);
    expect(matchSegment('part.?.csv', 'part.12.csv')).toBe(false);
    expect(matchSegment('*a*b', 'xxaxxbxb')).toBe(true);
    expect(matchSegment('*', '.hidden')).toBe(false);
    expect(matchSegment('a(b|c)+.csv', 'ab.csv')).toBe(false);
    const dir = mkdtempSync(join(tmpdir(), 'gf-glob-'));
    for (const [f, body] of [['b.csv', 'k,v\n3,c\n'], ['a.csv', 'k,v\n1,a\n2,b\n'], ['a.txt', 'x'], ['.c.csv', 'k,v\n9,z\n']]) writeFileSync(join(dir, f), body);
    const c = compile(wf([['r', 'read_csv', { path: join(dir, '?.csv') }]]));
    expect([...c.tasks.values()].map((t) => (t.spec.kind === 'df' ? t.spec.params.path : ''))).toEqual([join(dir, 'a.csv'), join(dir, 'b.csv')].map((p) => expect.stringContaining(p.split('/').pop()!)));
    expect(() => compile(wf([['r', 'read_csv', { path: join(dir, 'zz*.csv') }]]))).toThrow(/nodes\[0\]\.params\.path \(node 'r'\): no file in .* matches zz\*\.csv/);
    expect(() => compile(wf([['r', 'read_csv', { path: '/etc/passwd' }]]))).toThrow(/params\.path \(node 'r'\): \/etc\/passwd is outside the allowed folders/);
  });

  it('write_parquet writes one file per partition; read_parquet of the folder reads them back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gf-pq-'));
    const w = await runLocal(wf([['ts', 'timeseries', { partitions: 3, rows_per_partition: 50, seed: 4 }], ['w', 'write_parquet', { path: dir }]]));
    expect(w.w).toEqual({ kind: 'json', value: [0, 1, 2].map((i) => ({ path: join(dir, `part.${i}.parquet`), rows: 50 })) });
    const back = await runLocal(wf([['r', 'read_parquet', { path: join(dir, 'part.*.parquet') }], ['g', 'groupby', { by: ['name'], aggs: [{ column: 'x', agg: 'sum' }, { agg: 'size' }] }]]));
    const direct = await runLocal(wf([['ts', 'timeseries', { partitions: 3, rows_per_partition: 50, seed: 4 }], ['g', 'groupby', { by: ['name'], aggs: [{ column: 'x', agg: 'sum' }, { agg: 'size' }] }]]));
    const a = rowsOf(back.g);
    const b = rowsOf(direct.g);
    expect(a.map((r) => [r.name, r.size])).toEqual(b.map((r) => [r.name, r.size]));
    a.forEach((r, i) => expect(r.x_sum as number).toBeCloseTo(b[i].x_sum as number, 12));
    expect(() => compile(wf([ts, ['w', 'write_parquet', { path: join(dir, 'missing') }]]))).toThrow(/params\.path \(node 'w'\): .*missing is not an existing folder/);
  });

  it('from_array makes one partition per row block; the table result reports rows and columns', async () => {
    const r = await runLocal(wf([['a', 'arange', { start: 0, stop: 10, step: 1, chunks: 4 }], ['f', 'from_array', { columns: ['v'] }], ['q', 'filter', { expr: 'v % 3 == 0' }]], [['a', 'f', 'x'], ['f', 'q', 'df']]));
    expect(r.q).toMatchObject({ kind: 'table', rows: 4, columns: [{ name: 'v', type: 'float' }], truncated: false });
    expect(rowsOf(r.q).map((x) => x.v)).toEqual([0, 3, 6, 9]);
    // Blocks split across columns are joined into whole rows first.
    const two = await runLocal(wf([['o', 'full', { shape: [5, 3], chunks: [2, 2], value: 7 }], ['f', 'from_array', {}], ['d', 'describe', {}]], [['o', 'f', 'x'], ['f', 'd', 'df']]));
    const d = rowsOf(two.d);
    expect(Object.keys(d[0])).toEqual(['stat', 'c0', 'c1', 'c2']);
    expect(d[0]).toEqual({ stat: 'count', c0: 5, c1: 5, c2: 5 });
    expect(d[1]).toEqual({ stat: 'mean', c0: 7, c1: 7, c2: 7 });
  });
});
