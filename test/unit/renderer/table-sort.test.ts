/** Sorting a table view by one column: the pure row-order helper, against hand-sorted orders. */
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { decodeTable } from '../../../renderer/logic/arrow-table';
import { nextSort, sortRows } from '../../../renderer/logic/table-sort';

const table = (cols: unknown[][]) => (row: number, col: number) => cols[col][row];

describe('table sort', () => {
  it('orders numbers by value (not text), empties last in both directions, ties in row order', () => {
    const v = table([[10, 9, null, 100, 9, Number.NaN, -1]]);
    expect(sortRows(7, v, 0, 'asc')).toEqual([6, 1, 4, 0, 3, 2, 5]);
    expect(sortRows(7, v, 0, 'desc')).toEqual([3, 0, 1, 4, 6, 2, 5]);
  });

  it('orders bigints exactly, past what a float64 holds, and mixed with numbers', () => {
    const big = 2n ** 63n - 1n;
    const v = table([[big, big - 1n, 3, 0n]]);
    expect(sortRows(4, v, 0, 'asc')).toEqual([3, 2, 1, 0]);
  });

  it('orders text by its characters and booleans false first; sorts the column asked for', () => {
    const v = table([
      [1, 2, 3, 4],
      ['b', 'a', 'B', 'ab'],
      [true, false, true, false],
    ]);
    expect(sortRows(4, v, 1, 'asc')).toEqual([2, 1, 3, 0]);
    expect(sortRows(4, v, 2, 'asc')).toEqual([1, 3, 0, 2]);
    expect(sortRows(4, v, 2, 'desc')).toEqual([0, 2, 1, 3]);
  });

  it('cycles a header asc, desc, unsorted; another header starts ascending', () => {
    expect(nextSort(null, 2)).toEqual({ col: 2, dir: 'asc' });
    expect(nextSort({ col: 2, dir: 'asc' }, 2)).toEqual({ col: 2, dir: 'desc' });
    expect(nextSort({ col: 2, dir: 'desc' }, 2)).toBeNull();
    expect(nextSort({ col: 2, dir: 'desc' }, 0)).toEqual({ col: 0, dir: 'asc' });
  });

  it('sorts a decoded Arrow preview by its values: float64 by number, int64 by bigint, text by characters', () => {
    const t = tableFromArrays({ x: Float64Array.from([2.5, -1, 10]), n: BigInt64Array.from([30n, 10n, 20n]), s: ['b', 'c', 'a'] });
    const d = decodeTable(Buffer.from(tableToIPC(t, 'stream')).toString('base64'));
    const col = (c: number, order: number[]) => order.map((r) => d.cell(r, c));
    expect(col(0, sortRows(d.numRows, d.value, 0, 'asc'))).toEqual([d.cell(1, 0), d.cell(0, 0), d.cell(2, 0)]);
    expect(sortRows(d.numRows, d.value, 1, 'desc')).toEqual([0, 2, 1]);
    expect(sortRows(d.numRows, d.value, 2, 'asc')).toEqual([2, 0, 1]);
  });
});
