/**
 * The synthetic timeseries' columns and names (worker/kernels/df/timeseries.ts makes the data), and which of them a
 * groupby reads: what main needs of the timeseries while it compiles, without Apache Arrow, which
 * the engine loads only when it handles a table (start-up: docs/performance.md).
 */
import type { GroupbySpec } from './groupby-spec';

export const TIMESERIES_NAMES = [
  'Alice', 'Bob', 'Charlie', 'Dan', 'Edith', 'Frank', 'George', 'Hannah', 'Ingrid', 'Jerry', 'Kevin', 'Laura', 'Michael',
  'Norbert', 'Oliver', 'Patricia', 'Quinn', 'Ray', 'Sarah', 'Tim', 'Ursula', 'Victor', 'Wendy', 'Xavier', 'Yvonne', 'Zelda',
] as const;

export const TIMESERIES_COLUMNS = ['timestamp', 'id', 'name', 'x', 'y'] as const;
export type TimeseriesColumn = (typeof TIMESERIES_COLUMNS)[number];

/** The timeseries columns a groupby reads (keys, aggregated columns, idxmax / idxmin labels), in the standard order. */
export function groupbyColumns(spec: GroupbySpec): TimeseriesColumn[] {
  const used = new Set<string>([...spec.by, ...spec.aggs.flatMap((a) => (a.column ? [a.column] : []))]);
  if (spec.aggs.some((a) => a.agg === 'idxmax' || a.agg === 'idxmin')) used.add(spec.index ?? 'index');
  return TIMESERIES_COLUMNS.filter((c) => used.has(c));
}
