/**
 * drop_duplicates, value_counts and hash partitioning of one partition.
 *
 * Across partitions: drop_duplicates is exact after hashPartition on the subset (equal rows
 * land in one part), or by dropping per partition, concatenating and dropping again;
 * value_counts is valueCountsChunk per partition then valueCountsAggregate.
 */
import type { Table } from 'apache-arrow';
import { factorize, firstRows, hashRows } from './keys';
import { takeTable } from './gather';
import { groupbyAggregate, groupbyChunk } from './groupby';
import { sortTable } from './sort';

/**
 * Rows whose values over `subset` (default: all columns) were not seen before (keep 'first') or
 * are not seen again (keep 'last'); nulls equal nulls, as in pandas.
 */
export function dropDuplicates(table: Table, subset?: string[], keep: 'first' | 'last' = 'first'): Table {
  const cols = subset && subset.length ? subset : table.schema.fields.map((f) => f.name);
  const { ids: [ids], groups } = factorize([table], [cols], 'drop_duplicates', true);
  if (keep === 'first') return takeTable(table, firstRows(ids, groups).sort());
  const last = new Int32Array(groups);
  for (let i = 0; i < ids.length; i++) last[ids[i]] = i;
  return takeTable(table, last.sort());
}

/** Partial of value_counts (a groupby size partial). */
export function valueCountsChunk(table: Table, columnName: string): Table {
  return groupbyChunk(table, { by: [columnName], aggs: [{ agg: 'size' }] });
}

/** Counts of each distinct value: columns [value column, 'count'], most frequent first, ties by value. */
export function valueCountsAggregate(partials: Table[], columnName: string): Table {
  const t = groupbyAggregate(partials, { by: [columnName], aggs: [{ agg: 'size', as: 'count' }] });
  return sortTable(t, ['count', columnName], [false, true]);
}

export function valueCounts(table: Table, columnName: string): Table {
  return valueCountsAggregate([valueCountsChunk(table, columnName)], columnName);
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
