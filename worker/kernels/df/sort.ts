/**
 * Sorting one partition by one or more columns, stable, nulls last (pandas' defaults). Each key
 * becomes a Float64Array of sort ranks (numbers as themselves, strings as their rank in sorted
 * order of the dictionary), so the comparator only compares numbers. An int64 column holding
 * values beyond 2^53 (where float64 rounds) is ranked by its exact values instead.
 */
import type { Table } from 'apache-arrow';
import { column, int64View, numView, strView, boolView, valueTypeOf } from './columns';
import { takeTable } from './gather';

interface RankKey {
  x: Float64Array;
  /** 1 where the row has a value (null and NaN sort last). */
  ok: Uint8Array;
  sign: number;
}

/** Each value's rank among the distinct values (equal values share a rank). */
function exactRanks(b: BigInt64Array): Float64Array {
  const order = Int32Array.from(b.keys()).sort((i, j) => (b[i] < b[j] ? -1 : b[i] > b[j] ? 1 : 0));
  const rank = new Float64Array(b.length);
  let r = 0;
  order.forEach((row, k) => {
    if (k > 0 && b[row] !== b[order[k - 1]]) r++;
    rank[row] = r;
  });
  return rank;
}

function rankKey(table: Table, name: string, ascending: boolean): RankKey {
  const col = column(table, name, 'sort');
  const kind = valueTypeOf(col.type);
  const n = table.numRows;
  const ok = new Uint8Array(n).fill(1);
  let x: Float64Array;
  if (kind === 'string') {
    const v = strView(col, name);
    const order = v.dict.map((s, i) => [s, i] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const rank = new Float64Array(v.dict.length);
    order.forEach(([, i], r) => (rank[i] = r));
    x = new Float64Array(n);
    for (let i = 0; i < n; i++) x[i] = rank[v.codes[i]];
    if (v.valid) ok.set(v.valid);
  } else if (kind === 'bool') {
    const v = boolView(col, name);
    x = Float64Array.from(v.values);
    if (v.valid) ok.set(v.valid);
  } else if (kind) {
    const v = numView(col, name);
    const exact = int64View(col);
    x = exact && v.values.some((a) => Math.abs(a) >= 2 ** 53) ? exactRanks(exact.values) : v.values;
    for (let i = 0; i < n; i++) if ((v.valid && !v.valid[i]) || x[i] !== x[i]) ok[i] = 0;
  } else throw new Error(`sort: column '${name}' has type ${String(col.type)}, which cannot be sorted`);
  return { x, ok, sign: ascending ? 1 : -1 };
}

/** Row order that sorts the table by `by` (stable). */
export function sortIndices(table: Table, by: string[], ascending: boolean | boolean[] = true): Int32Array {
  if (by.length === 0) throw new Error('sort: needs at least one column');
  const asc = by.map((_, i) => (Array.isArray(ascending) ? (ascending[i] ?? true) : ascending));
  const keys = by.map((name, i) => rankKey(table, name, asc[i]));
  const n = table.numRows;
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  idx.sort((a, b) => {
    for (const k of keys) {
      const oa = k.ok[a];
      const ob = k.ok[b];
      if (oa !== ob) return ob - oa;
      if (oa) {
        const d = k.x[a] - k.x[b];
        if (d !== 0) return d < 0 ? -k.sign : k.sign;
      }
    }
    return a - b;
  });
  return idx;
}

/** The table sorted by `by` (stable; nulls last whatever the direction). */
export function sortTable(table: Table, by: string[], ascending: boolean | boolean[] = true): Table {
  return takeTable(table, sortIndices(table, by, ascending));
}
