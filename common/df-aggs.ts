/** The group-by aggregations the engine computes (main/engine/ops/df/aggregate.ts), shared with the renderer's list editor. */
export const AGGS = ['sum', 'mean', 'count', 'min', 'max', 'std', 'var', 'nunique', 'size', 'prod', 'first', 'last', 'median', 'idxmax', 'idxmin'] as const;
export type Agg = (typeof AGGS)[number];
