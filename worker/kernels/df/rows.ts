/**
 * drop_duplicates, value_counts and hash partitioning of one partition.
 *
 * Across partitions: drop_duplicates is exact after hashPartition on the subset (equal rows
 * land in one part), or by dropping per partition, concatenating and dropping again;
 * value_counts is valueCountsChunk per partition then valueCountsAggregate.
 */
import type { Table } from 'apache-arrow';
import { factorize, firstRows, hashRows } from './keys';
import { tableOf, takeTable } from './gather';
import { column, numView } from './columns';
import { floatVector } from './build';
import { groupbyAggregate, groupbyChunk } from './groupby';
import { sortTable } from './sort';

/**
 * Rows whose values over `subset` (default: all columns) were not seen before (keep 'first'), are
 * not seen again (keep 'last'), or occur once (keep 'none': pandas' keep=False); nulls equal
 * nulls, as in pandas. keep 'none' is exact only over the whole frame (the engine gathers it).
 */
export function dropDuplicates(table: Table, subset?: string[], keep: 'first' | 'last' | 'none' = 'first'): Table {
  const cols = subset && subset.length ? subset : table.schema.fields.map((f) => f.name);
  const { ids: [ids], groups } = factorize([table], [cols], 'drop_duplicates', true);
  if (keep === 'first') return takeTable(table, firstRows(ids, groups).sort());
  if (keep === 'none') {
    // pandas' keep=False: only the rows whose values occur once.
    const n = new Int32Array(groups);
    for (let i = 0; i < ids.length; i++) n[ids[i]]++;
    return takeTable(table, Int32Array.from(ids.keys()).filter((i) => n[ids[i]] === 1));
  }
  const last = new Int32Array(groups);
  for (let i = 0; i < ids.length; i++) last[ids[i]] = i;
  return takeTable(table, last.sort());
}

/** Partial of value_counts (a groupby size partial). */
export function valueCountsChunk(table: Table, columnName: string, dropna = true): Table {
  return groupbyChunk(table, { by: [columnName], aggs: [{ agg: 'size' }], ...(dropna ? {} : { dropna }) });
}

/**
 * Counts of each distinct value: columns [value column, 'count'], most frequent first, ties by
 * value (null last). `dropna: false` counts the nulls as a value; `normalize` gives each count's
 * share of the rows counted as a float column 'proportion' (pandas 2's name) instead.
 */
export function valueCountsAggregate(partials: Table[], columnName: string, opts: { dropna?: boolean; normalize?: boolean } = {}): Table {
  const t = sortTable(groupbyAggregate(partials, { by: [columnName], aggs: [{ agg: 'size', as: 'count' }], ...(opts.dropna === false ? { dropna: false } : {}) }), ['count', columnName], [false, true]);
  if (!opts.normalize) return t;
  const counts = numView(column(t, 'count', 'value_counts'), 'count').values;
  const total = counts.reduce((a, b) => a + b, 0);
  return tableOf([{ name: columnName, vector: column(t, columnName, 'value_counts') }, { name: 'proportion', vector: floatVector(counts.map((c) => c / total)) }], t.numRows);
}

export function valueCounts(table: Table, columnName: string, opts: { dropna?: boolean; normalize?: boolean } = {}): Table {
  return valueCountsAggregate([valueCountsChunk(table, columnName, opts.dropna ?? true)], columnName, opts);
}

/**
 * Splits a table into `k` parts by the hash of its key values: equal keys go to the same part
 * index in every partition and process (the map side of a shuffle). Row order is kept within a
 * part; nulls hash alike.
 */
export function hashPartition(table: Table, keys: string[], k: number): Table[] {
  if (!Number.isInteger(k) || k < 1) throw new Error(`hash partition: k must be a positive integer, got ${k}`);
  const h = hashRows(table, keys, 'hash partition');
  const counts = new Int32Array(k);
  const part = new Int32Array(h.length);
  for (let i = 0; i < h.length; i++) {
    part[i] = h[i] % k;
    counts[part[i]]++;
  }
  const idx = Array.from(counts, (c) => new Int32Array(c));
  const fill = new Int32Array(k);
  for (let i = 0; i < h.length; i++) idx[part[i]][fill[part[i]]++] = i;
  return idx.map((ix) => takeTable(table, ix));
}
