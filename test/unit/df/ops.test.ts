import { describe, expect, it } from 'vitest';
import { assign, drop, filter, head, rename, select, tail } from '../../../worker/kernels/df/ops';
import { sortTable } from '../../../worker/kernels/df/sort';
import { concatTables } from '../../../worker/kernels/df/gather';
import { tableFromArray } from '../../../worker/kernels/df/from-array';
import { column, expected, expectRowsClose, people, rows, wire, type Row } from './helpers';

describe('per-partition operations', () => {
  it('filters with expressions exactly as the pandas masks select', () => {
    const t = people();
    for (const [expr, ids] of Object.entries(expected.filters as Record<string, number[]>)) {
      expect(column(filter(t, expr), 'id'), expr).toEqual(ids);
    }
  });

  it('assigns computed columns as pandas computes them', () => {
    const out = assign(people(), {
      z1: 'salary * 2 + age', z2: 'round(salary / 1000, 1)', z3: 'year(start)', z4: 'abs(age - 40)', z5: 'log(age)', z6: 'age % 7 - age / 4',
    });
    expectRowsClose(rows(select(out, ['id', 'z1', 'z2', 'z3', 'z4', 'z5', 'z6'])), expected.assign as Row[]);
    const types = Object.fromEntries(out.schema.fields.map((f) => [f.name, String(f.type)]));
    expect(types).toMatchObject({ z1: 'Float64', z3: 'Int64', z4: 'Int64', z6: 'Float64' });
  });

  it('replaces a column in place when assigning to an existing name', () => {
    const out = assign(people(), { age: 'age + 1' });
    expect(out.schema.fields.map((f) => f.name)).toEqual(people().schema.fields.map((f) => f.name));
    expect(column(out, 'age')[0]).toBe(47);
  });

  it('sorts by several columns, stable, nulls last, as pandas', () => {
    const out = sortTable(people(), ['dept', 'salary'], [true, false]);
    expect(column(out, 'id')).toEqual(expected.sort);
  });

  it('selects, drops, renames, and takes head and tail', () => {
    const t = people();
    expect(select(t, ['age', 'id']).schema.fields.map((f) => f.name)).toEqual(['age', 'id']);
    expect(drop(t, ['name', 'start']).schema.fields.map((f) => f.name)).toEqual(['id', 'dept', 'age', 'salary', 'active']);
    expect(rename(t, { id: 'key' }).schema.fields[0].name).toBe('key');
    expect(() => rename(t, { id: 'age' })).toThrow("two columns would be named 'age'");
    expect(() => select(t, ['idd'])).toThrow("select: unknown column 'idd'; available columns: id, name, dept, age, salary, start, active");
    expect(column(head(t, 3), 'id')).toEqual([1, 2, 3]);
    expect(column(tail(t, 2), 'id')).toEqual([39, 40]);
    expect(tail(t, 100).numRows).toBe(40);
  });

  it('reads nulls correctly from sliced partitions (Arrow offsets)', () => {
    const t = people();
    const nullIds = (expected.filters as Record<string, number[]>)['salary is null or name is null'];
    const last = tail(t, 30);
    expect(column(filter(last, 'salary is null or name is null'), 'id')).toEqual(nullIds.filter((i) => i > 10));
    expect(column(sortTable(last, ['salary']), 'id').slice(-2)).toEqual([12, 28]);
  });

  it('concatenates partitions whose string dictionaries differ', () => {
    const t = people();
    const a = filter(t, "dept == 'eng'");
    const b = filter(t, "dept != 'eng'");
    const c = concatTables([a, b]);
    expect(c.numRows).toBe(40);
    expect(column(sortTable(c, ['id']), 'name')).toEqual(column(t, 'name'));
    expect(() => concatTables([a, select(b, ['id'])])).toThrow('concat: table 1 has columns [id]');
  });

  it('makes a table from a 2-D array and round-trips through IPC', () => {
    const t = tableFromArray({ dtype: 'float64', shape: [3, 2], data: Float64Array.from([1, 2, 3, 4, 5, 6]) }, ['a', 'b']);
    expect(rows(t)).toEqual([{ a: 1, b: 2 }, { a: 3, b: 4 }, { a: 5, b: 6 }]);
    const i = tableFromArray({ dtype: 'int64', shape: [2], data: BigInt64Array.from([7n, -8n]) });
    expect(rows(wire(i))).toEqual([{ value: 7 }, { value: -8 }]);
    expect(() => tableFromArray({ dtype: 'float64', shape: [1, 1, 1], data: new Float64Array(1) })).toThrow('1-D or 2-D');
  });
});
