/**
 * Dataframe reductions: groupby (a tree reduction as dask does it: a chunk task per partition
 * makes a small partial table, combine tasks merge split_every partials at a time, one aggregate
 * task finalizes), value_counts (the same tree with a size aggregate) and describe (exact
 * quantiles need every row, so it gathers the numeric columns into one task).
 */
import { AGGS, type Agg } from '../../../../common/df-aggs';
import type { DfOp, DfOpParams } from '../../../../common/df/op-params';
import type { TaskPlace } from '../../../../common/tasks';
import { share } from '../../compile/array-lower';
import type { BuildContext, OpDef } from '../types';
import { emitDf, frameInput, frameValue, listColumns, requireColumns, strList, type ColType, type DfColumn } from './meta';

const IN = [{ name: 'df', type: 'dataframe' as const }];
const OUT = [{ name: 'out', type: 'dataframe' as const }];
const NUMERIC_ONLY = new Set<Agg>(['sum', 'mean', 'std', 'var', 'prod', 'median']);

interface AggSpec {
  column?: string;
  agg: Agg;
  as?: string;
}

/**
 * Chunk -> combine (split_every at a time) -> aggregate; returns the aggregate's key. `final`
 * names the kernel op of the last step and its params.
 *
 * On G >= 2 GPU workers (ctx.gpuShare) the partials are combined per GPU first (issue 30): the
 * partitions split into G contiguous shares (placement.ts's share rule: partition i of n belongs
 * to GPU floor(i G / n)), each share's partials combined by the split_every tree of its own, and
 * the one aggregate reads the G share results, so only G - 1 partials move between GPUs. With
 * cuda GPU workers the combine tasks carry the share as their place, and so do the chunk tasks
 * over `generated` partitions (a timeseries source, fused into them: nothing to fetch); elsewhere
 * the grouping stands and placement follows the data.
 */
export function treeReduce<C extends DfOp, M extends DfOp, F extends DfOp>(
  ctx: BuildContext,
  keys: string[],
  chunk: { op: C; params: DfOpParams<C> },
  combine: { op: M; params: DfOpParams<M> },
  final: { op: F; params: DfOpParams<F> },
  splitEvery: number,
  partialBytes: number,
  inBytes: number,
  generated = false,
): string {
  const n = keys.length;
  const gpus = Math.min(ctx.gpuShare.gpus, n);
  const partials = keys.map((k, i) => {
    const key = ctx.key(chunk.op, [i]);
    // Only a chunk step over generated partitions is placed: one over read partitions runs where its partition is.
    emitDf(ctx, key, [k], chunk.op, chunk.params, partialBytes, inBytes + partialBytes, gpus > 1 && generated ? share(ctx, i, n).place : undefined);
    return key;
  });
  /** The split_every tree over `level` down to at most `upTo` keys; `prefix` keeps the keys of different shares apart. */
  const tree = (level: string[], upTo: number, prefix: number[], place?: TaskPlace): string[] => {
    let depth = 0;
    while (level.length > upTo) {
      const next: string[] = [];
      for (let i = 0; i < level.length; i += splitEvery) {
        const key = ctx.key(combine.op, [...prefix, depth, next.length]);
        const group = level.slice(i, i + splitEvery);
        emitDf(ctx, key, group, combine.op, combine.params, partialBytes, partialBytes * (group.length + 1), place);
        next.push(key);
      }
      level = next;
      depth++;
    }
    return level;
  };
  let level: string[];
  if (gpus > 1) {
    level = [];
    for (let g = 0; g < gpus; g++) {
      const mine = partials.filter((_, i) => Math.floor((i * gpus) / n) === g);
      level.push(...tree(mine, 1, [g], share(ctx, g, gpus).place));
    }
  } else {
    level = tree(partials, splitEvery, []);
  }
  const key = ctx.key(final.op);
  emitDf(ctx, key, level, final.op, final.params, partialBytes, partialBytes * (level.length + 1));
  return key;
}

export function splitEvery(ctx: BuildContext): number {
  const v = ctx.params.split_every ?? 8;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 2) return ctx.fail('params.split_every', 'must be a whole number >= 2');
  return v;
}

/** Parses and checks the aggs list against the columns; returns the specs and output columns. */
export function checkAggs(ctx: BuildContext, cols: DfColumn[], by: DfColumn[]): { aggs: AggSpec[]; out: DfColumn[] } {
  const raw = ctx.params.aggs;
  if (!Array.isArray(raw) || raw.length === 0) return ctx.fail('params.aggs', 'must be a list of {"column": ..., "agg": ..., "as"?: ...} with at least one entry');
  const aggs: AggSpec[] = [];
  const out: DfColumn[] = [...by];
  raw.forEach((a, i) => {
    const at = `params.aggs[${i}]`;
    if (typeof a !== 'object' || a === null || Array.isArray(a)) ctx.fail(at, 'must be an object {"column": ..., "agg": ..., "as"?: ...}');
    const o = a as Record<string, unknown>;
    for (const k of Object.keys(o)) if (k !== 'column' && k !== 'agg' && k !== 'as') ctx.fail(`${at}.${k}`, 'is not a field of an aggregate (column, agg, as)');
    if (typeof o.agg !== 'string' || !(AGGS as readonly string[]).includes(o.agg)) ctx.fail(`${at}.agg`, `must be one of ${AGGS.join(', ')}, got ${JSON.stringify(o.agg)}`);
    const agg = o.agg as Agg;
    if (o.as !== undefined && (typeof o.as !== 'string' || o.as === '')) ctx.fail(`${at}.as`, 'must be a non-empty column name');
    let type: ColType = 'int';
    let name: string;
    if (agg === 'size') {
      name = (o.as as string | undefined) ?? 'size';
    } else {
      if (typeof o.column !== 'string' || o.column === '') return ctx.fail(`${at}.column`, `must name a column; available columns: ${listColumns(cols)}`);
      const [c] = requireColumns(ctx, `${at}.column`, [o.column], cols);
      if (NUMERIC_ONLY.has(agg) && (c.type === 'string' || c.type === 'timestamp')) ctx.fail(`${at}.agg`, `cannot take the ${agg} of column '${c.name}' (${c.type}); it needs int, float or bool`);
      if ((agg === 'min' || agg === 'max' || agg === 'idxmax' || agg === 'idxmin') && c.type === 'string') ctx.fail(`${at}.agg`, `cannot take the ${agg} of column '${c.name}' (string)`);
      if (agg === 'sum' || agg === 'prod') type = c.type === 'float' ? 'float' : 'int';
      else if (agg === 'mean' || agg === 'std' || agg === 'var' || agg === 'median') type = 'float';
      else if (agg === 'min' || agg === 'max' || agg === 'first' || agg === 'last') type = c.type;
      else if (agg === 'idxmax' || agg === 'idxmin') type = indexColumn(ctx, cols).type;
      name = (o.as as string | undefined) ?? `${c.name}_${agg}`;
    }
    if (out.some((x) => x.name === name)) ctx.fail(`${at}.as`, `the output would have two columns named '${name}'; give "as" a different name`);
    out.push({ name, type });
    aggs.push({ agg, ...(agg === 'size' ? {} : { column: o.column as string }), ...(o.as !== undefined ? { as: o.as as string } : {}) });
  });
  return { aggs, out };
}

/** The column of row labels idxmax / idxmin return: params.index, default 'index' (reset_index's). */
function indexColumn(ctx: BuildContext, cols: DfColumn[]): DfColumn {
  const name = ctx.params.index ?? 'index';
  if (typeof name !== 'string' || name === '') return ctx.fail('params.index', 'must name the column of row labels');
  const c = cols.find((x) => x.name === name);
  if (!c) return ctx.fail('params.index', `idxmax / idxmin return the labels of column '${name}', which the frame lacks; add it with a reset_index node (pandas' RangeIndex, 0..n-1 in frame order) or name the labels' column; columns: ${listColumns(cols)}`);
  return c;
}

const groupby: OpDef = {
  spec: {
    op: 'groupby',
    label: 'Group by',
    category: 'dataframes',
    doc: 'Aggregates per distinct key: sum, mean, count, min, max, std, var, nunique, prod, median, first, last (first / last present value in frame order), idxmax, idxmin (the label, from the `index` column, of the first row holding the max / min) and size. A tree reduction: per-partition partials, merged split_every at a time. Sorted by the keys; null keys dropped (pandas).',
    inputs: IN,
    outputs: OUT,
    params: [
      { name: 'by', kind: 'strings', required: true, minLength: 1 },
      { name: 'aggs', kind: 'json', required: true, doc: '[{"column": "x", "agg": "mean", "as": "x_mean"}, ...]' },
      { name: 'ddof', kind: 'number', integer: true, min: 0, default: 1, doc: 'delta degrees of freedom of std and var' },
      { name: 'dropna', kind: 'boolean', default: true, doc: "false: a null key is a group of its own, sorted last (pandas' groupby(dropna=False))" },
      { name: 'index', kind: 'string', default: 'index', doc: 'the column of row labels idxmax / idxmin return (reset_index makes pandas\' RangeIndex as `index`)' },
      { name: 'split_every', kind: 'number', integer: true, min: 2, default: 8 },
    ],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const byNames = strList(ctx, 'by', true)!;
    const by = requireColumns(ctx, 'params.by', byNames, f.columns);
    const { aggs, out } = checkAggs(ctx, f.columns, by);
    const ddof = typeof ctx.params.ddof === 'number' ? ctx.params.ddof : 1;
    // The labels' column only where idxmax / idxmin read it, so other specs stay as they were.
    const index = aggs.some((a) => a.agg === 'idxmax' || a.agg === 'idxmin') && typeof ctx.params.index === 'string' ? ctx.params.index : undefined;
    const spec = { by: byNames, aggs, ddof, ...(index !== undefined ? { index } : {}), ...(ctx.params.dropna === false ? { dropna: false } : {}) };
    // A partial has one row per group; its size is unknown until run time, bounded by the input.
    const partial = Math.min(f.partitionBytes, 1 << 20);
    const key = treeReduce(ctx, f.keys, { op: 'groupby-chunk', params: { spec } }, { op: 'groupby-combine', params: { spec } }, { op: 'groupby-aggregate', params: { spec } }, splitEvery(ctx), partial, f.partitionBytes, f.generated);
    return { out: frameValue([key], out, partial) };
  },
};

const valueCounts: OpDef = {
  spec: {
    op: 'value_counts',
    label: 'Value counts',
    category: 'dataframes',
    doc: "How often each distinct value of a column occurs: [column, count], most frequent first, ties by value (null last). pandas' normalize (shares as 'proportion') and dropna (false: nulls counted).",
    inputs: IN,
    outputs: OUT,
    params: [
      { name: 'column', kind: 'string', required: true },
      { name: 'normalize', kind: 'boolean', default: false, doc: "each value's share of the rows counted, as a float column 'proportion'" },
      { name: 'dropna', kind: 'boolean', default: true, doc: 'false: the nulls are counted as a value' },
      { name: 'split_every', kind: 'number', integer: true, min: 2, default: 8 },
    ],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const [c] = requireColumns(ctx, 'params.column', [typeof ctx.params.column === 'string' ? ctx.params.column : ''], f.columns);
    const column = c.name;
    const partial = Math.min(f.partitionBytes, 1 << 20);
    // The chunk step is a groupby size partial, so combine is the groupby combine with that spec.
    const nulls = ctx.params.dropna === false ? { dropna: false } : {};
    const normalize = ctx.params.normalize === true;
    const sizeSpec = { by: [column], aggs: [{ agg: 'size' as const }], ...nulls };
    const aggregate = { column, ...nulls, ...(normalize ? { normalize } : {}) };
    const key = treeReduce(ctx, f.keys, { op: 'value-counts-chunk', params: { column, ...nulls } }, { op: 'groupby-combine', params: { spec: sizeSpec } }, { op: 'value-counts-aggregate', params: aggregate }, splitEvery(ctx), partial, f.partitionBytes);
    return { out: frameValue([key], [c, normalize ? { name: 'proportion', type: 'float' } : { name: 'count', type: 'int' }], partial) };
  },
};

/** Per-partition selects of `cols`, then one gathering task `op` over them; returns its key. */
function gatherColumns<Op extends DfOp>(ctx: BuildContext, f: ReturnType<typeof frameInput>, cols: string[], op: Op, params: DfOpParams<Op>): string {
  const sel = f.keys.map((k, i) => {
    const key = ctx.key('columns', [i]);
    emitDf(ctx, key, [k], 'select', { columns: cols }, f.partitionBytes, f.partitionBytes * 2);
    return key;
  });
  const key = ctx.key(op);
  emitDf(ctx, key, sel, op, params, 1024, f.partitionBytes * f.partitions * 2);
  return key;
}

function numericColumns(ctx: BuildContext, f: ReturnType<typeof frameInput>): DfColumn[] {
  const numeric = f.columns.filter((c) => c.type === 'int' || c.type === 'float');
  if (numeric.length === 0) ctx.fail('inputs.df', `has no numeric column (columns: ${f.columns.map((c) => `${c.name} (${c.type})`).join(', ')})`);
  return numeric;
}

/** A list of numbers in [0, 1] (percentiles, quantiles), or `dflt` when absent. */
function fractions(ctx: BuildContext, name: string, dflt: number[] | undefined): number[] | undefined {
  const v = ctx.params[name];
  if (v === undefined || v === null) return dflt;
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && x >= 0 && x <= 1)) return ctx.fail(`params.${name}`, 'must be a list of numbers between 0 and 1, e.g. [0.1, 0.5, 0.9]');
  return v as number[];
}

const describe: OpDef = {
  spec: {
    op: 'describe',
    label: 'Describe',
    category: 'dataframes',
    doc: "pandas' describe of the numeric columns: count, mean, std, min, the percentiles (default 25%, 50%, 75%; the median always), max. Exact quantiles: the numeric columns are gathered into one task.",
    inputs: IN,
    outputs: OUT,
    params: [{ name: 'percentiles', kind: 'numbers', min: 0, doc: 'fractions in [0, 1], e.g. [0.1, 0.9]' }],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const numeric = numericColumns(ctx, f);
    const percentiles = fractions(ctx, 'percentiles', undefined);
    // Only the numeric columns travel to the gathering task.
    const key = gatherColumns(ctx, f, numeric.map((c) => c.name), 'describe', percentiles ? { percentiles } : {});
    return { out: frameValue([key], [{ name: 'stat', type: 'string' }, ...numeric.map((c) => ({ name: c.name, type: 'float' as const }))], 1024) };
  },
};

const quantile: OpDef = {
  spec: {
    op: 'df_quantile', label: 'Quantiles (dataframe)', category: 'dataframes',
    doc: "Quantiles of each numeric column, as pandas' df.quantile(q) (linear interpolation, exact: the numeric columns are gathered into one task). Output: column q, then one column per numeric column.",
    inputs: IN, outputs: OUT,
    params: [{ name: 'q', kind: 'numbers', min: 0, default: [0.5], doc: 'fractions in [0, 1]' }],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const numeric = numericColumns(ctx, f);
    const q = fractions(ctx, 'q', [0.5])!;
    const key = gatherColumns(ctx, f, numeric.map((c) => c.name), 'quantile', { q });
    return { out: frameValue([key], [{ name: 'q', type: 'float' }, ...numeric.map((c) => ({ name: c.name, type: 'float' as const }))], 1024) };
  },
};

const nunique: OpDef = {
  spec: {
    op: 'nunique', label: 'Distinct counts', category: 'dataframes',
    doc: "Distinct present values per column, as pandas' df.nunique(): columns column and nunique. The columns are gathered into one task.",
    inputs: IN, outputs: OUT,
    params: [{ name: 'columns', kind: 'strings', doc: 'default: every column' }],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const names = strList(ctx, 'columns', false);
    const cols = names ? requireColumns(ctx, 'params.columns', names, f.columns).map((c) => c.name) : f.columns.map((c) => c.name);
    const key = gatherColumns(ctx, f, cols, 'nunique', { columns: cols });
    return { out: frameValue([key], [{ name: 'column', type: 'string' }, { name: 'nunique', type: 'int' }], 1024) };
  },
};

export const DF_AGGREGATE_OPS: OpDef[] = [groupby, valueCounts, describe, quantile, nunique];
