import { describe, expect, it } from 'vitest';
import { describe as describeTable, DESCRIBE_STATS } from '../../../worker/kernels/df/describe';
import { dropDuplicates, hashPartition, valueCounts, valueCountsAggregate, valueCountsChunk } from '../../../worker/kernels/df/rows';
import { hashRows } from '../../../worker/kernels/df/keys';
import { tableFromArrays } from 'apache-arrow';
import { column, expected, people, rows } from './helpers';

describe('describe, value_counts, drop_duplicates, hash partitioning', () => {
  it('describes numeric columns as pandas', () => {
    const d = describeTable(people());
    expect(column(d, 'stat')).toEqual([...DESCRIBE_STATS]);
    const want = expected.describe as Record<string, number[]>;
    for (const c of ['age', 'salary']) {
      (column(d, c) as number[]).forEach((v, i) => expect(v).toBeCloseTo(want[c][i], 6));
    }
    expect(d.schema.fields.map((f) => f.name)).toEqual(['stat', 'id', 'age', 'salary']);
  });

  it('counts values over partitions, most frequent first', () => {
    const t = people();
    const want = (expected.value_counts as [string, number][]).slice().sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    expect(rows(valueCounts(t, 'dept')).map((r) => [r.dept, r.count])).toEqual(want);
    const parts = [t.slice(0, 7), t.slice(7, 30), t.slice(30)].map((p) => valueCountsChunk(p, 'dept'));
    expect(rows(valueCountsAggregate(parts, 'dept')).map((r) => [r.dept, r.count])).toEqual(want);
  });

  it('drops duplicate rows keeping the first or the last', () => {
    expect(column(dropDuplicates(people(), ['dept', 'active']), 'id')).toEqual(expected.drop_duplicates);
    expect(column(dropDuplicates(people(), ['dept', 'active'], 'last'), 'id')).toEqual(expected.drop_duplicates_last);
    const t = tableFromArrays({ a: [1, 1, null, null, 2] as (number | null)[], b: ['x', 'x', 'y', 'y', 'x'] });
    expect(rows(dropDuplicates(t))).toEqual([{ a: 1, b: 'x' }, { a: null, b: 'y' }, { a: 2, b: 'x' }]);
  });

  it('hash-partitions by value, the same for any partition or column type', () => {
    const t = people();
    const parts = hashPartition(t, ['dept'], 3);
    expect(parts.reduce((a, p) => a + p.numRows, 0)).toBe(40);
    // Each dept lands in one part only.
    const owner = new Map<string, number>();
    parts.forEach((p, k) => column(p, 'dept').forEach((d) => {
      expect(owner.get(d as string) ?? k).toBe(k);
      owner.set(d as string, k);
    }));
    // Equal values hash alike across types and dictionaries.
    const a = tableFromArrays({ k: Int32Array.from([5, 7]), s: ['p', 'q'] });
    const b = tableFromArrays({ k: Float64Array.from([7, 5]), s: ['q', 'p'] });
    const ha = hashRows(a, ['k', 's'], 't');
    const hb = hashRows(b, ['k', 's'], 't');
    expect([hb[1], hb[0]]).toEqual([ha[0], ha[1]]);
    expect(() => hashPartition(t, ['dept'], 0)).toThrow('k must be a positive integer');
  });
});
