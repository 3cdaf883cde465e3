/**
 * Distributed sort by sampling (as dask's set_index / sort_values): no partition ever holds the
 * whole frame.
 *
 *   sortSample(partition)            -> up to `count` key rows, evenly spaced (deterministic)
 *   chooseSplitters(samples, parts)  -> parts - 1 key rows cutting the sorted sample evenly
 *   rangeSplit(partition, splitters) -> rows grouped by output part (stable), ranges in metadata
 *   sortPart(splits, p)              -> part p of every split, concatenated in partition order,
 *                                       sorted locally (stable)
 *
 * A row goes to the part numbered by how many splitters are <= it (upper bound), so rows with
 * equal keys always land in one part; concatenating that part's pieces in partition order keeps
 * their original order, and the local sort is stable: the whole result equals a stable sort of
 * the concatenated frame (nulls and NaN last, whatever the direction, as sort.ts).
 */
import { Schema, Table } from 'apache-arrow';
import { boolView, column, numView, strView, valueTypeOf } from './columns';
import { concatTables, takeTable } from './gather';
import { sortTable } from './sort';

/** Schema metadata key of a split table's part offsets (shared with hash-split). */
export const PARTS_KEY = 'gpuflow.parts';

/** One key column read for comparison across tables: numbers, or strings by content. */
type KeyCol =
  | { t: 'num'; x: Float64Array; ok: Uint8Array; sign: number }
  | { t: 'str'; codes: Int32Array; dict: string[]; ok: Uint8Array; sign: number };

function keyCols(table: Table, by: string[], asc: boolean[], where: string): KeyCol[] {
  const n = table.numRows;
  return by.map((name, j) => {
    const col = column(table, name, where);
    const kind = valueTypeOf(col.type);
    const sign = asc[j] ? 1 : -1;
    const ok = new Uint8Array(n).fill(1);
    if (kind === 'string') {
      const v = strView(col, name);
      if (v.valid) ok.set(v.valid);
      return { t: 'str', codes: v.codes, dict: v.dict, ok, sign };
    }
    if (kind === 'bool') {
      const v = boolView(col, name);
      if (v.valid) ok.set(v.valid);
      return { t: 'num', x: Float64Array.from(v.values), ok, sign };
    }
    if (!kind) throw new Error(`${where}: column '${name}' has type ${String(col.type)}, which cannot be sorted`);
    const v = numView(col, name);
    for (let i = 0; i < n; i++) if ((v.valid && !v.valid[i]) || v.values[i] !== v.values[i]) ok[i] = 0;
    return { t: 'num', x: v.values, ok, sign };
  });
}

/** Sign of (row a of A) - (row b of B) in sort order: values before nulls, then by value. */
function compareRows(A: KeyCol[], a: number, B: KeyCol[], b: number): number {
  for (let j = 0; j < A.length; j++) {
    const ka = A[j];
    const kb = B[j];
    const oa = ka.ok[a];
    const ob = kb.ok[b];
    if (oa !== ob) return ob - oa;
    if (!oa) continue;
    let d = 0;
    if (ka.t === 'num' && kb.t === 'num') d = ka.x[a] < kb.x[b] ? -1 : ka.x[a] > kb.x[b] ? 1 : 0;
    else if (ka.t === 'str' && kb.t === 'str') {
      const sa = ka.dict[ka.codes[a]];
      const sb = kb.dict[kb.codes[b]];
      d = sa < sb ? -1 : sa > sb ? 1 : 0;
    } else throw new Error('sort: a key column has a different type in two partitions');
    if (d !== 0) return d * ka.sign;
  }
  return 0;
}

export function ascendingList(by: string[], ascending: boolean | boolean[] = true): boolean[] {
  return by.map((_, i) => (Array.isArray(ascending) ? (ascending[i] ?? true) : ascending));
}

/** Up to `count` rows of the key columns, evenly spaced through the partition. */
export function sortSample(table: Table, by: string[], count: number): Table {
  for (const b of by) column(table, b, 'sort sample');
  const n = table.numRows;
  const m = Math.min(n, Math.max(0, count));
  const idx = new Int32Array(m);
  for (let i = 0; i < m; i++) idx[i] = Math.floor(((i + 0.5) * n) / m);
  return takeTable(table.select(by), idx);
}

/** parts - 1 splitter rows from the partitions' samples (fewer rows than that: duplicates allowed). */
export function chooseSplitters(samples: Table[], by: string[], ascending: boolean | boolean[], parts: number): Table {
  const all = sortTable(concatTables(samples.map((s) => s.select(by))), by, ascending);
  const m = all.numRows;
  if (m === 0 || parts <= 1) return all.slice(0, 0);
  const idx = new Int32Array(parts - 1);
  for (let i = 0; i < parts - 1; i++) idx[i] = Math.min(m - 1, Math.floor(((i + 1) * m) / parts));
  return takeTable(all, idx);
}

/** Output part of every row: the number of splitters <= the row (binary search). */
export function rangeParts(table: Table, splitters: Table, by: string[], ascending: boolean | boolean[]): Int32Array {
  const asc = ascendingList(by, ascending);
  const rows = keyCols(table, by, asc, 'sort range-split');
  const cuts = keyCols(splitters, by, asc, 'sort range-split (splitters)');
  const s = splitters.numRows;
  const n = table.numRows;
  const part = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let lo = 0;
    let hi = s;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareRows(cuts, mid, rows, i) <= 0) lo = mid + 1;
      else hi = mid;
    }
    part[i] = lo;
  }
  return part;
}

/** Rows of `table` grouped by `part` (stable within a part), ranges recorded in the metadata. */
export function splitByPart(table: Table, part: Int32Array, k: number): Table {
  const n = part.length;
  const off = new Int32Array(k + 1);
  for (let i = 0; i < n; i++) off[part[i] + 1]++;
  for (let p = 0; p < k; p++) off[p + 1] += off[p];
  const fill = off.slice(0, k);
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[fill[part[i]]++] = i;
  const t = takeTable(table, idx);
  const md = new Map(t.schema.metadata);
  md.set(PARTS_KEY, JSON.stringify(Array.from(off)));
  return new Table(new Schema(t.schema.fields, md), t.batches.map((b) => b));
}

/**
 * The partition split into `parts` ranges of the sort order. Splitters number parts - 1, or fewer
 * when the samples were (every partition empty): the last ranges are then empty.
 */
export function rangeSplit(table: Table, splitters: Table, by: string[], ascending: boolean | boolean[], parts = splitters.numRows + 1): Table {
  if (parts < splitters.numRows + 1) throw new Error(`sort range-split: ${splitters.numRows} splitters make ${splitters.numRows + 1} ranges, more than the ${parts} parts asked`);
  return splitByPart(table, rangeParts(table, splitters, by, ascending), parts);
}

/** Part p of a table made by splitByPart (hash-split or range-split). */
export function partOf(table: Table, part: number, where = 'df gather-part'): Table {
  const raw = table.schema.metadata.get(PARTS_KEY);
  if (!raw) throw new Error(`${where}: the input was not made by a split`);
  const off = JSON.parse(raw) as number[];
  if (part >= off.length - 1) throw new Error(`${where}: part ${part} does not exist (the split made ${off.length - 1})`);
  const s = table.slice(off[part], off[part + 1]);
  return new Table(new Schema(s.schema.fields), s.batches);
}

/** Part p of every split (in partition order), sorted locally: output partition p of the sort. */
export function sortPart(splits: Table[], part: number, by: string[], ascending: boolean | boolean[]): Table {
  return sortTable(concatTables(splits.map((t) => partOf(t, part, 'df sort-part'))), by, ascending);
}
