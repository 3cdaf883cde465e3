import { tableFromIPC, tableToIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { groupby, groupbyAggregate, groupbyChunk, groupbyCombine, type GroupbySpec } from '../../../worker/kernels/df/groupby';
import { hashPartition } from '../../../worker/kernels/df/rows';
import { expected, expectRowsClose, people, rows, type Row } from './helpers';

const spec: GroupbySpec = {
  by: ['dept'],
  aggs: [
    { column: 'salary', agg: 'sum' }, { column: 'salary', agg: 'mean' }, { column: 'salary', agg: 'count' },
    { column: 'salary', agg: 'min' }, { column: 'salary', agg: 'max' }, { column: 'salary', agg: 'std' },
    { column: 'salary', agg: 'var' }, { column: 'age', agg: 'nunique' }, { column: 'name', agg: 'nunique' },
    { column: 'age', agg: 'sum' }, { column: 'age', agg: 'max' },
  ],
};

describe('groupby (chunk, combine, aggregate)', () => {
  it('matches pandas on one partition', () => {
    expectRowsClose(rows(groupby(people(), spec)), expected.groupby_dept as Row[]);
  });

  it('gives the same answer from partials of any split, through IPC and a combine tree', () => {
    const t = people();
    for (const cuts of [[0, 40], [0, 1, 17, 18, 40], [0, 10, 20, 30, 40]]) {
      const parts = cuts.slice(1).map((e, i) => t.slice(cuts[i], e));
      // Partials cross processes as IPC bytes.
      const partials = parts.map((p) => tableFromIPC(tableToIPC(groupbyChunk(p, spec))));
      const left = groupbyCombine(partials.slice(0, 1), spec);
      const right = groupbyCombine(partials.slice(1).length ? partials.slice(1) : partials.slice(0, 1), spec);
      const result = cuts.length > 2 ? groupbyAggregate([left, right], spec) : groupbyAggregate(partials, spec);
      expectRowsClose(rows(result), expected.groupby_dept as Row[]);
    }
  });

  it('keeps the right types: int sums and maxima stay ints, counts are ints', () => {
    const r = groupby(people(), spec);
    const types = Object.fromEntries(r.schema.fields.map((f) => [f.name, String(f.type)]));
    expect(types).toMatchObject({ age_sum: 'Int64', age_max: 'Int64', salary_count: 'Int64', age_nunique: 'Int64', salary_mean: 'Float64' });
  });

  it('groups by two keys, after a hash shuffle, with size', () => {
    const s2: GroupbySpec = { by: ['dept', 'active'], aggs: [{ column: 'salary', agg: 'mean' }, { column: 'salary', agg: 'std' }, { agg: 'size', as: 'n' }] };
    const t = people();
    // Shuffle: each input partition split by key hash into 3; output partition p gets part p of each.
    const inputs = [t.slice(0, 13), t.slice(13, 29), t.slice(29)];
    const split = inputs.map((p) => hashPartition(p, ['dept', 'active'], 3));
    const outs = [0, 1, 2].map((p) => groupbyAggregate(split.map((s) => groupbyChunk(s[p], s2)), s2));
    const seen = outs.flatMap(rows).sort((a, b) => String(a.dept).localeCompare(String(b.dept)) || Number(a.active) - Number(b.active));
    expectRowsClose(seen, expected.groupby_dept_active as Row[]);
  });

  it('uses ddof and says what is wrong in a bad spec', () => {
    const t = people();
    const pop = rows(groupby(t, { by: ['dept'], aggs: [{ column: 'salary', agg: 'var' }], ddof: 0 }));
    const want = (expected.groupby_dept as Row[]).map((r) => (r.salary_var as number) * ((r.salary_count as number) - 1) / (r.salary_count as number));
    pop.forEach((r, i) => expect(r.salary_var as number).toBeCloseTo(want[i], 3));
    expect(() => groupby(t, { by: ['dept'], aggs: [{ column: 'name', agg: 'mean' }] })).toThrow("cannot take the mean of column 'name' (string)");
    expect(() => groupby(t, { by: ['nope'], aggs: [{ column: 'age', agg: 'sum' }] })).toThrow("unknown column 'nope'");
    expect(() => groupby(t, { by: ['dept'], aggs: [{ column: 'age', agg: 'mode' as never }] })).toThrow("aggs[0].agg is 'mode'");
  });
});
