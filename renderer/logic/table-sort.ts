/**
 * The row order of a table sorted by one column (a click on its header in the table view):
 * numbers and bigints by value (mixed too), booleans false before true, anything else by its text;
 * empty cells (null, undefined, NaN) last in both directions, so a descending sort does not open
 * on a screen of blanks. Ties keep the rows' own order (stable). Pure: reads cells through `value`.
 */
export type SortDir = 'asc' | 'desc';

const isEmpty = (v: unknown) => v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v));

function compareValues(a: unknown, b: unknown): number {
  const numA = typeof a === 'number' || typeof a === 'bigint';
  const numB = typeof b === 'number' || typeof b === 'bigint';
  // number vs bigint compares exactly with < and > (no conversion that loses digits).
  if (numA && numB) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Row indices 0..rows-1 in the order of column `col`, ascending or descending. */
export function sortRows(rows: number, value: (row: number, col: number) => unknown, col: number, dir: SortDir): number[] {
  const keys = Array.from({ length: rows }, (_, r) => value(r, col));
  const sign = dir === 'asc' ? 1 : -1;
  return Array.from({ length: rows }, (_, r) => r).sort((x, y) => {
    const ex = isEmpty(keys[x]);
    const ey = isEmpty(keys[y]);
    if (ex || ey) return ex === ey ? x - y : ex ? 1 : -1;
    return sign * compareValues(keys[x], keys[y]) || x - y;
  });
}

/** The next sort of a header click: a new column ascending, the same column asc → desc → unsorted. */
export function nextSort(cur: { col: number; dir: SortDir } | null, col: number): { col: number; dir: SortDir } | null {
  if (cur === null || cur.col !== col) return { col, dir: 'asc' };
  return cur.dir === 'asc' ? { col, dir: 'desc' } : null;
}
