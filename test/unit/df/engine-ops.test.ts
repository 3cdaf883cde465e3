/**
 * Dataframe nodes compiled and run in-process (runLocal: the same task specs the workers run),
 * against results pandas computed from the same files (test/fixtures/df/make_fixtures.py).
 * Small blocksizes split the 40-row CSV into several partitions so the groupby tree, the shuffle
 * and the gathers are exercised, not just one partition.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLocal } from '../../helpers/local-run';
import { rowsOf, type Row } from '../../helpers/df-rows';

const expected = JSON.parse(readFileSync('test/fixtures/df/expected.json', 'utf8'));
const PEOPLE = 'test/fixtures/df/people.csv';
const DEPTS = 'test/fixtures/df/depts.csv';

type N = [string, string, Record<string, unknown>];
/** A workflow: nodes fed in a chain through port df (or the ports given in extra edges). */
function wf(nodes: N[], edges: [string, string, string][] = []): unknown {
  const chainEdges = edges.length ? edges : nodes.slice(1).map((n, i) => [nodes[i][0], n[0], 'df'] as [string, string, string]);
  return { format: 'gpuflow.workflow/1', nodes: nodes.map(([id, op, params]) => ({ id, op, params })), edges: chainEdges.map(([s, t, p]) => ({ source: s, sourcePort: 'out', target: t, targetPort: p })) };
}

// Dates are read as timestamps, as the fixture script's parse_dates=['start'].
const people = (blocksize = 400): N => ['src', 'read_csv', { path: PEOPLE, blocksize, types: { start: 'timestamp' } }];

function close(actual: Row[], want: Record<string, unknown>[]): void {
  expect(actual.length).toBe(want.length);
  want.forEach((w, i) => {
    for (const [k, v] of Object.entries(w)) {
      const a = actual[i][k];
      if (typeof v === 'number' && !Number.isInteger(v)) expect(a as number, `row ${i} ${k}`).toBeCloseTo(v, 6);
      else expect(a, `row ${i} ${k}`).toEqual(v);
    }
  });
}

describe('dataframe nodes through the engine (in-process)', () => {
  it('read_csv with several byte-range partitions gives every row once', async () => {
    const r = await runLocal(wf([people(300), ['ids', 'select', { columns: ['id', 'name', 'salary'] }]]));
    const rows = rowsOf(r.ids);
    expect(rows.map((x) => x.id)).toEqual(expected.people.map((p: Row) => p.id));
    expect(rows.map((x) => x.name)).toEqual(expected.people.map((p: Row) => p.name));
    expect(rows.map((x) => x.salary)).toEqual(expected.people.map((p: Row) => p.salary));
  });

  it('filter: every pandas mask', async () => {
    for (const [expr, ids] of Object.entries(expected.filters as Record<string, number[]>)) {
      const r = await runLocal(wf([people(), ['f', 'filter', { expr }], ['ids', 'select', { columns: ['id'] }]]));
      expect(rowsOf(r.ids).map((x) => x.id), expr).toEqual(ids);
    }
  });

  it('assign: six expressions', async () => {
    const exprs: Record<string, string> = { z1: 'salary * 2 + age', z2: 'round(salary / 1000, 1)', z3: 'year(start)', z4: 'abs(age - 40)', z5: 'log(age)', z6: 'age % 7 - age / 4' };
    const nodes: N[] = [people(), ...Object.entries(exprs).map(([column, expr]): N => [column, 'assign', { column, expr }]), ['out', 'select', { columns: ['id', ...Object.keys(exprs)] }]];
    const r = await runLocal(wf(nodes));
    close(rowsOf(r.out), expected.assign);
  });

  it('groupby one key, eleven aggregates, as a tree (split_every 2)', async () => {
    const aggs = [
      ['salary', 'sum'], ['salary', 'mean'], ['salary', 'count'], ['salary', 'min'], ['salary', 'max'], ['salary', 'std'],
      ['salary', 'var'], ['age', 'nunique'], ['name', 'nunique'], ['age', 'sum'], ['age', 'max'],
    ].map(([column, agg]) => ({ column, agg }));
    const r = await runLocal(wf([people(200), ['g', 'groupby', { by: ['dept'], aggs, split_every: 2 }]]));
    close(rowsOf(r.g), expected.groupby_dept);
  });

  it('groupby two keys with std and size', async () => {
    const aggs = [{ column: 'salary', agg: 'mean' }, { column: 'salary', agg: 'std' }, { agg: 'size', as: 'n' }];
    const r = await runLocal(wf([people(), ['g', 'groupby', { by: ['dept', 'active'], aggs }]]));
    close(rowsOf(r.g), expected.groupby_dept_active);
  });

  for (const how of ['inner', 'left', 'outer'] as const) {
    for (const strategy of how === 'outer' ? ['hash'] : ['broadcast', 'hash']) {
      it(`merge ${how} (${strategy})`, async () => {
        const doc = wf(
          [people(), ['l', 'select', { columns: ['id', 'dept', 'age'] }], ['r', 'read_csv', { path: DEPTS, ...(strategy === 'hash' ? { blocksize: 20 } : {}) }], ['m', 'merge', { how, on: ['dept'], strategy: strategy === 'hash' ? 'hash' : 'auto' }], ['s', 'sort', { by: ['id', 'dept'] }]],
          [['src', 'l', 'df'], ['l', 'm', 'left'], ['r', 'm', 'right'], ['m', 's', 'df']],
        );
        const rows = rowsOf((await runLocal(doc)).s);
        // pandas turns int columns with missing values into float; the values compare equal.
        close(rows.map((x) => ({ id: x.id, dept: x.dept, age: x.age, floor: x.floor, budget: x.budget })), expected[`join_${how}`]);
      });
    }
  }

  it('merge gives same-named columns the suffixes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gf-df-'));
    const right = join(dir, 'right.csv');
    writeFileSync(right, 'dept,age\neng,100\nops,200\n');
    const doc = wf(
      [people(), ['l', 'select', { columns: ['id', 'dept', 'age'] }], ['r', 'read_csv', { path: right }], ['m', 'merge', { how: 'inner', on: ['dept'] }], ['s', 'sort', { by: ['id'] }]],
      [['src', 'l', 'df'], ['l', 'm', 'left'], ['r', 'm', 'right'], ['m', 's', 'df']],
    );
    const rows = rowsOf((await runLocal(doc)).s);
    expect(Object.keys(rows[0])).toEqual(['id', 'dept', 'age_x', 'age_y']);
    close(rows, expected.join_suffix);
  });

  it('sort by two keys, mixed directions, nulls last', async () => {
    const r = await runLocal(wf([people(), ['s', 'sort', { by: ['dept', 'salary'], ascending: [true, false] }], ['ids', 'select', { columns: ['id'] }]]));
    expect(rowsOf(r.ids).map((x) => x.id)).toEqual(expected.sort);
  });

  it('value_counts, describe, drop_duplicates, head and tail', async () => {
    const vc = rowsOf((await runLocal(wf([people(), ['v', 'value_counts', { column: 'dept', split_every: 2 }]]))).v);
    // pandas orders ties by first appearance, we by value: compare as sets of pairs.
    expect(vc.map((x) => [x.dept, x.count]).sort()).toEqual([...expected.value_counts].sort());
    const d = rowsOf((await runLocal(wf([people(), ['s', 'select', { columns: ['age', 'salary'] }], ['d', 'describe', {}]]))).d);
    expect(d.map((x) => x.stat)).toEqual(['count', 'mean', 'std', 'min', '25%', '50%', '75%', 'max']);
    d.forEach((x, i) => {
      expect(x.age as number).toBeCloseTo(expected.describe.age[i], 6);
      expect(x.salary as number).toBeCloseTo(expected.describe.salary[i], 4);
    });
    const dd = rowsOf((await runLocal(wf([people(), ['d', 'drop_duplicates', { subset: ['dept', 'active'], keep: 'last' }]]))).d);
    expect(dd.map((x) => x.id)).toEqual(expected.drop_duplicates_last);
    const h = rowsOf((await runLocal(wf([people(150), ['h', 'head', { n: 7 }]]))).h);
    expect(h.map((x) => x.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const t = rowsOf((await runLocal(wf([people(150), ['t', 'tail', { n: 3 }]]))).t);
    expect(t.map((x) => x.id)).toEqual([38, 39, 40]);
  });

  it("read_csv on_bad_lines 'skip' drops the malformed rows as pandas does", async () => {
    const r = await runLocal(wf([['src', 'read_csv', { path: 'test/fixtures/df/bad.csv', on_bad_lines: 'skip', blocksize: 30 }], ['c', 'concat', {}]], [['src', 'c', 'a'], ['src', 'c', 'b']]));
    const rows = rowsOf(r.c);
    expect(rows.slice(0, rows.length / 2)).toEqual(expected.bad_skip);
    expect(r.c.kind === 'table' && r.c.rows).toBe(2 * expected.bad_skip.length);
  });
});
