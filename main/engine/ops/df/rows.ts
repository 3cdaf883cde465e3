/**
 * Dataframe nodes that reorder, subset or combine rows: head, tail, concat, sort,
 * drop_duplicates, repartition. Sort is a sampling sort (worker/kernels/df/range-sort.ts): each partition
 * sends a sample of its keys, one small task picks split points, every partition is split into
 * ranges, and output partition p sorts range p of every split; no task holds the whole frame.
 * drop_duplicates gathers every partition into one task (the compiler's task-size limit refuses
 * it when too big). head/tail take n rows of every partition first, so the gather is n per partition.
 */
import type { DfOp, DfOpParams } from '../../../../common/df/op-params';
import type { BuildContext, OpDef } from '../types';
import { emitDf, frameInput, frameValue, requireColumns, strList, type LazyFrame } from './meta';
import { mapPartitions } from './columns';

const IN = [{ name: 'df', type: 'dataframe' as const }];
const OUT = [{ name: 'out', type: 'dataframe' as const }];

/** One task over all partitions of `f`; the result is a one-partition frame. */
export function gatherAll<Op extends DfOp>(ctx: BuildContext, f: LazyFrame, op: Op, params: DfOpParams<Op>, name: string = op): LazyFrame['keys'][number] {
  const total = f.partitionBytes * f.partitions;
  const key = ctx.key(name);
  emitDf(ctx, key, f.keys, op, params, total, total * 3);
  return key;
}

/** Key rows each partition samples for the sort's split points (enough for even ranges, small to move). */
export function sampleCount(parts: number): number {
  return Math.min(4096, 32 * parts);
}

/** The sampling sort's tasks; returns the keys of its output partitions (as many as the input's). */
function rangeSort(ctx: BuildContext, f: LazyFrame, by: string[], params: { by: string[]; ascending: boolean | boolean[] }): string[] {
  const k = f.partitions;
  const count = sampleCount(k);
  const keyBytes = by.length * 8 + 1;
  const samples = f.keys.map((key, i) => {
    const s = ctx.key('sort-sample', [i]);
    emitDf(ctx, s, [key], 'sort-sample', { by, count }, count * keyBytes, f.partitionBytes);
    return s;
  });
  const splitters = ctx.key('sort-splitters');
  emitDf(ctx, splitters, samples, 'sort-splitters', { ...params, parts: k }, k * keyBytes, 3 * count * k * keyBytes);
  const splits = f.keys.map((key, i) => {
    const s = ctx.key('range-split', [i]);
    emitDf(ctx, s, [key, splitters], 'range-split', { ...params, parts: k }, f.partitionBytes, f.partitionBytes * 2.5);
    return s;
  });
  return Array.from({ length: k }, (_, p) => {
    const key = ctx.key('sort-part', [p]);
    emitDf(ctx, key, splits, 'sort-part', { ...params, part: p }, f.partitionBytes, f.partitionBytes * 3);
    return key;
  });
}

function count(ctx: BuildContext, name: string): number {
  const v = ctx.params[name];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return ctx.fail(`params.${name}`, 'must be a whole number >= 0');
  return v;
}

function ends(op: 'head' | 'tail'): OpDef {
  return {
    spec: { op, label: op === 'head' ? 'Head' : 'Tail', category: 'dataframes', doc: `The ${op === 'head' ? 'first' : 'last'} n rows, in partition order.`, inputs: IN, outputs: OUT, params: [{ name: 'n', kind: 'number', integer: true, min: 0, default: 5 }] },
    build(ctx) {
      const f = frameInput(ctx, 'df');
      const n = count(ctx, 'n');
      // n rows of each partition, then n of their concatenation: exact, and only n*p rows move.
      const rowBytes = f.columns.length * 8 + 1;
      const parts = f.keys.map((k, i) => {
        const key = ctx.key(`${op}-part`, [i]);
        emitDf(ctx, key, [k], op, { n }, n * rowBytes, f.partitionBytes + n * rowBytes);
        return key;
      });
      const key = ctx.key(op);
      emitDf(ctx, key, parts, op, { n }, n * rowBytes, 3 * n * rowBytes * parts.length);
      return { out: frameValue([key], f.columns, n * rowBytes) };
    },
  };
}

const concat: OpDef = {
  spec: {
    op: 'concat',
    label: 'Concatenate',
    category: 'dataframes',
    doc: 'The rows of a then b (then c, d): their partitions, in order. The frames must have the same columns and types.',
    inputs: [{ name: 'a', type: 'dataframe' }, { name: 'b', type: 'dataframe' }, { name: 'c', type: 'dataframe', optional: true }, { name: 'd', type: 'dataframe', optional: true }],
    outputs: OUT,
    params: [],
  },
  build(ctx) {
    const frames = (['a', 'b', 'c', 'd'] as const).filter((p) => p === 'a' || p === 'b' || ctx.inputs[p]).map((p) => ({ port: p, f: frameInput(ctx, p) }));
    const first = frames[0].f;
    const sig = (f: LazyFrame) => f.columns.map((c) => `${c.name} (${c.type})`).join(', ');
    for (const { port, f } of frames.slice(1)) {
      if (sig(f) !== sig(first)) ctx.fail(`inputs.${port}`, `has columns ${sig(f)} but inputs.a has ${sig(first)}`);
    }
    // No task: a concatenation is the list of the inputs' partitions.
    return { out: frameValue(frames.flatMap((x) => x.f.keys), first.columns, Math.max(...frames.map((x) => x.f.partitionBytes))) };
  },
};

const sort: OpDef = {
  spec: {
    op: 'sort',
    label: 'Sort',
    category: 'dataframes',
    doc: 'Rows sorted by columns (stable, nulls last). Sampled split points range-partition the rows, then each partition is sorted on its own: output partition p holds the p-th range.',
    inputs: IN,
    outputs: OUT,
    params: [
      { name: 'by', kind: 'strings', required: true, minLength: 1 },
      { name: 'ascending', kind: 'json', default: true, doc: 'true, false, or one boolean per column of by' },
    ],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const by = strList(ctx, 'by', true)!;
    requireColumns(ctx, 'params.by', by, f.columns);
    const asc = ctx.params.ascending ?? true;
    const ascending =
      typeof asc === 'boolean' || (Array.isArray(asc) && asc.length === by.length && asc.every((a): a is boolean => typeof a === 'boolean'))
        ? asc
        : ctx.fail('params.ascending', `must be true, false, or a list of ${by.length} booleans (one per column of by)`);
    const params = { by, ascending };
    if (f.partitions === 1) {
      const key = gatherAll(ctx, f, 'sort', params);
      return { out: frameValue([key], f.columns, f.partitionBytes) };
    }
    return { out: frameValue(rangeSort(ctx, f, by, params), f.columns, f.partitionBytes) };
  },
};

/**
 * set_index(column): gpuflow frames keep no hidden index, so this is dask's set_index as far as
 * rows go: the frame sorted by the column (stable, nulls last) with the column first. The range
 * sort's sampled splitters play the part of dask's divisions: output partition p holds the p-th
 * range of values, so partitions are sorted and do not overlap; the divisions are not reported.
 * pandas' df.set_index(c).sort_index(kind='stable').reset_index() is the same table.
 */
const setIndex: OpDef = {
  spec: {
    op: 'set_index',
    label: 'Set index',
    category: 'dataframes',
    doc: "dask's set_index(column) as a table: rows sorted by the column (stable, nulls last), range-partitioned so partitions hold non-overlapping sorted ranges (dask's divisions), the column moved first. Name it as groupby's `index` for idxmax / idxmin labels.",
    inputs: IN,
    outputs: OUT,
    params: [{ name: 'column', kind: 'string', required: true }],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const name = ctx.params.column;
    if (typeof name !== 'string' || name === '') return ctx.fail('params.column', 'must name a column');
    const [c] = requireColumns(ctx, 'params.column', [name], f.columns);
    const params = { by: [name], ascending: true };
    const sorted = f.partitions === 1 ? [gatherAll(ctx, f, 'sort', params)] : rangeSort(ctx, f, [name], params);
    const columns = [c, ...f.columns.filter((x) => x.name !== name)];
    if (f.columns[0].name === name) return { out: frameValue(sorted, columns, f.partitionBytes) };
    return { out: mapPartitions(ctx, { ...f, keys: sorted }, 'select', { columns: columns.map((x) => x.name) }, columns, 'set_index-order') };
  },
};

const dropDuplicates: OpDef = {
  spec: {
    op: 'drop_duplicates',
    label: 'Drop duplicates',
    category: 'dataframes',
    doc: "Keeps the first (or last) row of each distinct combination of the subset columns (default: all); keep 'none' (pandas' keep=False) drops every row whose combination repeats. Gathers the frame into one partition.",
    inputs: IN,
    outputs: OUT,
    params: [
      { name: 'subset', kind: 'strings', doc: 'columns that define a duplicate (default: all)' },
      { name: 'keep', kind: 'enum', options: ['first', 'last', 'none'], default: 'first', doc: "none: pandas' keep=False" },
    ],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const subset = strList(ctx, 'subset', false);
    if (subset) requireColumns(ctx, 'params.subset', subset, f.columns);
    const keep = ctx.params.keep === 'last' || ctx.params.keep === 'none' ? ctx.params.keep : 'first';
    const key = gatherAll(ctx, f, 'drop-duplicates', { keep, ...(subset ? { subset } : {}) });
    return { out: frameValue([key], f.columns, f.partitionBytes * f.partitions) };
  },
};

/**
 * repartition(npartitions=k), as dask: fewer partitions concatenate neighbours (output j holds
 * inputs floor(j n / k) .. floor((j + 1) n / k) - 1, one 'concat' task; a group of one passes its
 * key on), more split each input into even row slices ('slice-part'). Row order is kept.
 */
const repartition: OpDef = {
  spec: {
    op: 'repartition', label: 'Repartition', category: 'dataframes',
    doc: "dask's repartition(npartitions=k): neighbouring partitions concatenated, or partitions split into even row slices; row order kept.",
    inputs: IN, outputs: OUT,
    params: [{ name: 'npartitions', kind: 'number', integer: true, min: 1, required: true }],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const k = count(ctx, 'npartitions');
    if (k < 1) return ctx.fail('params.npartitions', 'must be at least 1');
    const n = f.partitions;
    const keys: string[] = [];
    if (k <= n) {
      for (let j = 0; j < k; j++) {
        const group = f.keys.slice(Math.floor((j * n) / k), Math.floor(((j + 1) * n) / k));
        if (group.length === 1) keys.push(group[0]);
        else {
          const key = ctx.key('repartition', [j]);
          emitDf(ctx, key, group, 'concat', {}, f.partitionBytes * group.length);
          keys.push(key);
        }
      }
      return { out: frameValue(keys, f.columns, (f.partitionBytes * n) / k) };
    }
    f.keys.forEach((src, i) => {
      const parts = Math.floor(((i + 1) * k) / n) - Math.floor((i * k) / n);
      for (let p = 0; p < parts; p++) {
        const key = ctx.key('repartition', [i, p]);
        emitDf(ctx, key, [src], 'slice-part', { part: p, parts }, f.partitionBytes / parts, f.partitionBytes);
        keys.push(key);
      }
    });
    return { out: frameValue(keys, f.columns, (f.partitionBytes * n) / k) };
  },
};

export const DF_ROW_OPS: OpDef[] = [ends('head'), ends('tail'), concat, sort, setIndex, dropDuplicates, repartition];
