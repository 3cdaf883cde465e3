/**
 * Row-order nodes (kernels in worker/kernels/df/scan.ts): df_cumsum, df_cumprod, df_cummax,
 * df_cummin, ffill, bfill, shift and df_diff (df_ where the array catalog has the name), each over the whole frame in row order as pandas, though it is split
 * into partitions.
 *
 * cum ops and ffill: a 'scan-carry' task per partition but the last (its aggregate, or its last
 * present value), then 'scan' of partition i over the carries of partitions 0..i-1 and itself;
 * bfill the mirror image (carries of the later partitions). shift / diff with periods p > 0: a
 * 'tail' of p rows per partition but the last, then 'shift' of partition i over the tails of
 * 0..i-1 and itself (p < 0: heads of the later partitions), as rolling does. Carries are one row
 * and tails p rows, so partition i's inputs grow with i but stay small.
 *
 * The results replace the columns named (default: every numeric column for cum ops and diff,
 * every column for shift, ffill and bfill), or with `suffix` are added as `<column><suffix>`.
 */
import type { BuildContext, OpDef } from '../types';
import { emitDf, frameInput, frameValue, requireColumns, rowBytes, strList, type DfColumn, type LazyFrame } from './meta';

const IN = [{ name: 'df', type: 'dataframe' as const }];
const OUT = [{ name: 'out', type: 'dataframe' as const }];
const numeric = (c: DfColumn) => c.type === 'int' || c.type === 'float';

/** The columns the node works on, checked; `numericOnly` for cum ops and diff. */
function scanColumns(ctx: BuildContext, f: LazyFrame, numericOnly: boolean): DfColumn[] {
  const names = strList(ctx, 'columns', false);
  const cols = names ? requireColumns(ctx, 'params.columns', names, f.columns) : f.columns.filter((c) => !numericOnly || numeric(c));
  if (cols.length === 0) return ctx.fail('params.columns', `the frame has no numeric column; columns: ${f.columns.map((c) => `${c.name} (${c.type})`).join(', ')}`);
  if (numericOnly) for (const c of cols) if (!numeric(c)) ctx.fail('params.columns', `column '${c.name}' is ${c.type}, not a number`);
  return cols;
}

/** The output schema: the columns replaced in place (same names), or added with the suffix. */
function outColumns(ctx: BuildContext, f: LazyFrame, cols: DfColumn[], type: (c: DfColumn) => DfColumn['type']): { columns: DfColumn[]; suffix?: string } {
  const suffix = typeof ctx.params.suffix === 'string' && ctx.params.suffix !== '' ? ctx.params.suffix : undefined;
  if (!suffix) return { columns: f.columns.map((c) => (cols.some((x) => x.name === c.name) ? { name: c.name, type: type(c) } : c)) };
  const added = cols.map((c) => ({ name: c.name + suffix, type: type(c) }));
  for (const a of added) if (f.columns.some((c) => c.name === a.name)) ctx.fail('params.suffix', `column '${a.name}' exists already`);
  return { columns: [...f.columns, ...added], suffix };
}

/** `node`: the node's kind (df_ where the array catalog has the name, as df_quantile). */
function scanNode(op: 'cumsum' | 'cumprod' | 'cummax' | 'cummin' | 'ffill' | 'bfill', label: string, doc: string): OpDef {
  const cum = op !== 'ffill' && op !== 'bfill';
  return {
    spec: {
      op: cum ? `df_${op}` : op, label, category: 'dataframes', doc, inputs: IN, outputs: OUT,
      params: [
        { name: 'columns', kind: 'strings', doc: cum ? 'default: every numeric column' : 'default: every column' },
        { name: 'suffix', kind: 'string', doc: 'empty: replace the columns; else add <column><suffix>' },
      ],
    },
    build(ctx) {
      const f = frameInput(ctx, 'df');
      const cols = scanColumns(ctx, f, cum);
      const { columns, suffix } = outColumns(ctx, f, cols, (c) => c.type);
      const spec = { op, columns: cols.map((c) => c.name), ...(suffix ? { suffix } : {}) };
      const carryBytes = rowBytes(cols);
      const last = f.keys.length - 1;
      const carries = f.keys.map((k, i) => {
        if (op === 'bfill' ? i === 0 : i === last) return '';
        const key = ctx.key(`${op}-carry`, [i]);
        emitDf(ctx, key, [k], 'scan-carry', spec, carryBytes, f.partitionBytes);
        return key;
      });
      const bytes = f.partitionBytes * (rowBytes(columns) / rowBytes(f.columns));
      const keys = f.keys.map((k, i) => {
        const key = ctx.key(op, [i]);
        const deps = op === 'bfill' ? [k, ...carries.slice(i + 1)] : [...carries.slice(0, i), k];
        emitDf(ctx, key, deps, 'scan', spec, bytes, f.partitionBytes + bytes + i * carryBytes);
        return key;
      });
      return { out: frameValue(keys, columns, bytes) };
    },
  };
}

function shiftNode(diff: boolean): OpDef {
  const op = diff ? 'diff' : 'shift';
  return {
    spec: {
      op: diff ? 'df_diff' : 'shift', label: diff ? 'Difference (dataframe)' : 'Shift', category: 'dataframes',
      doc: diff
        ? "pandas' diff(periods): each value minus the value `periods` rows before it (negative: after), in frame order across partitions; float, null where there is no such row."
        : "pandas' shift(periods): each column's values moved down `periods` rows (negative: up), in frame order across partitions; null where no row moves in.",
      inputs: IN, outputs: OUT,
      params: [
        { name: 'periods', kind: 'number', integer: true, default: 1 },
        { name: 'columns', kind: 'strings', doc: diff ? 'default: every numeric column' : 'default: every column' },
        { name: 'suffix', kind: 'string', doc: 'empty: replace the columns; else add <column><suffix>' },
      ],
    },
    build(ctx) {
      const f = frameInput(ctx, 'df');
      const p = ctx.params.periods ?? 1;
      if (typeof p !== 'number' || !Number.isInteger(p) || p === 0) return ctx.fail('params.periods', 'must be a whole number other than 0');
      const cols = scanColumns(ctx, f, diff);
      const { columns, suffix } = outColumns(ctx, f, cols, (c) => (diff ? 'float' : c.type));
      const n = Math.abs(p);
      const edge = n * rowBytes(f.columns);
      const last = f.keys.length - 1;
      // The rows a partition lends its neighbours: its last p (first -p) rows.
      const lent = f.keys.map((k, i) => {
        if (p > 0 ? i === last : i === 0) return '';
        const key = ctx.key(`${op}-${p > 0 ? 'tail' : 'head'}`, [i]);
        emitDf(ctx, key, [k], p > 0 ? 'tail' : 'head', { n }, edge, f.partitionBytes);
        return key;
      });
      const spec = { periods: p, columns: cols.map((c) => c.name), ...(suffix ? { suffix } : {}), ...(diff ? { diff: true } : {}) };
      const bytes = f.partitionBytes * (rowBytes(columns) / rowBytes(f.columns));
      const keys = f.keys.map((k, i) => {
        const key = ctx.key(op, [i]);
        const deps = p > 0 ? [...lent.slice(0, i), k] : [k, ...lent.slice(i + 1)];
        emitDf(ctx, key, deps, 'shift', spec, bytes, f.partitionBytes + bytes + i * edge);
        return key;
      });
      return { out: frameValue(keys, columns, bytes) };
    },
  };
}

/**
 * reset_index: pandas' reset_index() of a frame on its default RangeIndex. gpuflow frames carry no
 * hidden index, so this writes the RangeIndex out as a first column (the row's position in frame
 * order, across partitions) that later nodes carry like any column, as pandas carries its labels
 * through filters, sorts and merges; groupby idxmax / idxmin return its values.
 */
const resetIndex: OpDef = {
  spec: {
    op: 'reset_index', label: 'Reset index', category: 'dataframes',
    doc: "pandas' reset_index() of a frame on its default RangeIndex: a first int column (default `index`) numbering the rows 0..n-1 in frame order across partitions; later nodes carry it as pandas carries its labels (groupby idxmax / idxmin return it).",
    inputs: IN, outputs: OUT,
    params: [{ name: 'name', kind: 'string', default: 'index', doc: 'the new column' }],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const name = ctx.params.name ?? 'index';
    if (typeof name !== 'string' || name === '') return ctx.fail('params.name', 'must be a non-empty column name');
    if (f.columns.some((c) => c.name === name)) ctx.fail('params.name', `column '${name}' exists already (pandas: cannot insert ${name}, already exists)`);
    const columns: DfColumn[] = [{ name, type: 'int' }, ...f.columns];
    const last = f.keys.length - 1;
    const counts = f.keys.map((k, i) => {
      if (i === last) return '';
      const key = ctx.key('reset_index-count', [i]);
      emitDf(ctx, key, [k], 'row-count', {}, 8, f.partitionBytes);
      return key;
    });
    const bytes = f.partitionBytes * (rowBytes(columns) / rowBytes(f.columns));
    const keys = f.keys.map((k, i) => {
      const key = ctx.key('reset_index', [i]);
      emitDf(ctx, key, [...counts.slice(0, i), k], 'row-number', { name }, bytes, f.partitionBytes + bytes + i * 8);
      return key;
    });
    return { out: frameValue(keys, columns, bytes) };
  },
};

export const DF_SCAN_OPS: OpDef[] = [
  resetIndex,
  scanNode('cumsum', 'Cumulative sum (dataframe)', "pandas' cumsum: the running sum of each column in frame order across partitions; a missing value stays missing and is skipped."),
  scanNode('cumprod', 'Cumulative product (dataframe)', "pandas' cumprod: the running product in frame order; a missing value stays missing and is skipped."),
  scanNode('cummax', 'Cumulative maximum (dataframe)', "pandas' cummax: the running maximum in frame order; a missing value stays missing and is skipped."),
  scanNode('cummin', 'Cumulative minimum (dataframe)', "pandas' cummin: the running minimum in frame order; a missing value stays missing and is skipped."),
  scanNode('ffill', 'Fill forward', "pandas' ffill: a missing value (null, NaN) takes the last present value before it in frame order, across partitions; leading ones stay missing."),
  scanNode('bfill', 'Fill backward', "pandas' bfill: a missing value takes the next present value after it in frame order, across partitions; trailing ones stay missing."),
  shiftNode(false),
  shiftNode(true),
];
