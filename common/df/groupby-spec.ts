/**
 * A groupby's spec: key columns and aggregates, as the groupby node's params give them. Shared by
 * main, which checks it and plans the columns a fused source generates (compile/df-fuse.ts), and
 * the worker's kernels (worker/kernels/df/groupby.ts), which run it.
 */

export type AggName = 'sum' | 'mean' | 'count' | 'min' | 'max' | 'std' | 'var' | 'nunique' | 'size' | 'prod' | 'first' | 'last' | 'median' | 'idxmax' | 'idxmin';
export const AGG_NAMES: readonly AggName[] = ['sum', 'mean', 'count', 'min', 'max', 'std', 'var', 'nunique', 'size', 'prod', 'first', 'last', 'median', 'idxmax', 'idxmin'];

export interface AggSpec {
  /** The column aggregated; ignored by 'size'. */
  column?: string;
  agg: AggName;
  /** Output column name; default `<column>_<agg>`, or `size`. */
  as?: string;
}

export interface GroupbySpec {
  by: string[];
  aggs: AggSpec[];
  /** Delta degrees of freedom of var and std (default 1, as pandas). */
  ddof?: number;
  /** The column holding the row labels idxmax / idxmin return (default 'index', as reset_index names it). */
  index?: string;
  /** false: a null key is a group of its own (pandas' groupby(dropna=False)); default true, nulls dropped. */
  dropna?: boolean;
}
