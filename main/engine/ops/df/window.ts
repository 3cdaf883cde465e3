/**
 * rolling, resample and pivot_table nodes (kernels in worker/kernels/df/window.ts and resample.ts).
 *
 * rolling: per partition i, one task over the tails (window - 1 rows) of partitions 0..i-1 and
 * partition i itself, so windows cross partition edges as dask's map_overlap does and a
 * partition shorter than the window passes its rows on. The tails are small (window - 1 rows
 * each), the number of them grows with i. A time window ('2h' along `on`) takes as tail the rows
 * within 2h of the partition's last time ('rolling-time-tail'): the frame sorted by `on`, as
 * pandas needs, no later row's window reaches further back.
 * resample: 'resample-bin' per partition (the time column becomes each row's period start), the
 * groupby tree on it, then 'resample-fill' adds the empty periods (0 for sum/count/size/nunique).
 * pivot_table: the groupby tree on [index, columns] with the aggregate, then one 'pivot' task.
 * The categories (values of `columns` that become output columns) are given, as dask's
 * pivot_table needs known categories: the output's columns must be known when it compiles.
 */
import type { OpDef } from '../types';
import { checkAggs, splitEvery, treeReduce } from './aggregate';
import { mapPartitions } from './columns';
import { calendarOf, durationMs, periodMs } from '../../../../common/df/period';
import { emitDf, frameInput, frameValue, requireColumns, str, type DfColumn } from './meta';

const IN = [{ name: 'df', type: 'dataframe' as const }];
const OUT = [{ name: 'out', type: 'dataframe' as const }];
const ROLLING_AGGS = ['sum', 'mean', 'min', 'max', 'std', 'var', 'count'] as const;
const PIVOT_AGGS = ['mean', 'sum', 'count', 'min', 'max'] as const;
const isRollingAgg = (a: string): a is (typeof ROLLING_AGGS)[number] => (ROLLING_AGGS as readonly string[]).includes(a);

const rolling: OpDef = {
  spec: {
    op: 'rolling', label: 'Rolling window', category: 'dataframes',
    doc: "pandas' df[column].rolling(window).agg(): a new column per [column, agg] over each row and the window - 1 rows before it, in frame order; null until min_periods values are present. A time window ('2h', with on: a timestamp column sorted ascending) holds the rows with on in (t - 2h, t].",
    inputs: IN, outputs: OUT,
    params: [
      { name: 'window', kind: 'json', required: true, doc: "rows (a whole number >= 1), or a time like '2h', '30min', '1D' with on" },
      { name: 'on', kind: 'string', doc: 'the timestamp column of a time window' },
      { name: 'aggs', kind: 'json', required: true, doc: '[{"column": "x", "agg": "mean", "as": "x_mean3"}, ...]; agg in sum, mean, min, max, std, var, count' },
      { name: 'min_periods', kind: 'number', integer: true, min: 0, doc: 'default: the window' },
    ],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const window = ctx.params.window;
    const on = typeof ctx.params.on === 'string' && ctx.params.on !== '' ? ctx.params.on : undefined;
    let windowMs: number | undefined;
    if (typeof window === 'string') {
      if (!on) return ctx.fail('params.on', `a time window ('${window}') needs on: the timestamp column it runs along`);
      try {
        windowMs = durationMs(window, 'window');
      } catch (e) {
        return ctx.fail('params.window', (e as Error).message);
      }
      const [oc] = requireColumns(ctx, 'params.on', [on], f.columns);
      if (oc.type !== 'timestamp') ctx.fail('params.on', `column '${on}' is ${oc.type}, not a timestamp`);
    } else if (typeof window !== 'number' || !Number.isInteger(window) || window < 1) return ctx.fail('params.window', "must be a whole number >= 1, or a time like '2h' with on");
    else if (on) ctx.fail('params.on', 'is for a time window; a window of rows runs in frame order');
    const raw = ctx.params.aggs;
    if (!Array.isArray(raw) || raw.length === 0) return ctx.fail('params.aggs', 'must be a list like [{"column": "x", "agg": "mean"}]');
    const cols = raw.map((a, i) => {
      const e = a as { column?: unknown; agg?: unknown; as?: unknown };
      if (typeof e !== 'object' || e === null || typeof e.column !== 'string' || typeof e.agg !== 'string' || !isRollingAgg(e.agg)) return ctx.fail(`params.aggs[${i}]`, `must be {"column": <numeric column>, "agg": one of ${ROLLING_AGGS.join(', ')}}`);
      const [c] = requireColumns(ctx, `params.aggs[${i}].column`, [e.column], f.columns);
      if (c.type !== 'int' && c.type !== 'float') ctx.fail(`params.aggs[${i}].column`, `column '${c.name}' is ${c.type}, not a number`);
      return { column: e.column, agg: e.agg, as: typeof e.as === 'string' && e.as !== '' ? e.as : `${e.column}_rolling_${e.agg}` };
    });
    const mp = ctx.params.min_periods;
    const minPeriods = typeof mp === 'number' ? mp : undefined;
    const columns: DfColumn[] = [...f.columns.filter((c) => !cols.some((x) => x.as === c.name)), ...cols.map((c) => ({ name: c.as, type: 'float' as const }))];
    const rowBytes = f.columns.length * 8 + 1;
    // A time window's tail is the rows within windowMs of its partition's last time (how many is known only when it runs).
    const rows = typeof window === 'number' ? window : 1;
    const tailBytes = windowMs !== undefined ? f.partitionBytes : (rows - 1) * rowBytes;
    const tails = windowMs !== undefined || rows > 1 ? f.keys.slice(0, -1).map((k, i) => {
      const key = ctx.key('rolling-tail', [i]);
      if (windowMs !== undefined && on !== undefined) emitDf(ctx, key, [k], 'rolling-time-tail', { on, windowMs }, tailBytes, f.partitionBytes);
      else emitDf(ctx, key, [k], 'tail', { n: rows - 1 }, tailBytes, f.partitionBytes);
      return key;
    }) : [];
    const bytes = f.partitionBytes * (1 + cols.length / Math.max(1, f.columns.length));
    const timeSpec = windowMs !== undefined ? { on, windowMs } : {};
    const keys = f.keys.map((k, i) => {
      const key = ctx.key('rolling', [i]);
      emitDf(ctx, key, [...tails.slice(0, i), k], 'rolling', { window: rows, ...timeSpec, ...(minPeriods !== undefined ? { minPeriods } : {}), cols }, bytes, bytes * 2 + i * tailBytes);
      return key;
    });
    return { out: frameValue(keys, columns, bytes) };
  },
};

const pivotTable: OpDef = {
  spec: {
    op: 'pivot_table', label: 'Pivot table', category: 'dataframes',
    doc: "pandas' pivot_table(index, columns, values, aggfunc): one row per index value, one column per category of `columns` (the categories are given, as dask needs them known).",
    inputs: IN, outputs: OUT,
    params: [
      { name: 'index', kind: 'string', required: true },
      { name: 'columns', kind: 'string', required: true },
      { name: 'values', kind: 'string', required: true },
      { name: 'aggfunc', kind: 'enum', options: [...PIVOT_AGGS], default: 'mean' },
      { name: 'categories', kind: 'json', required: true, doc: 'the values of `columns` that become columns, e.g. ["eng", "ops"]' },
      { name: 'split_every', kind: 'number', integer: true, min: 2, default: 8 },
    ],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const index = str(ctx, 'index');
    const columnsName = str(ctx, 'columns');
    const values = str(ctx, 'values');
    const [ic, cc, vc] = requireColumns(ctx, 'params', [index, columnsName, values], f.columns);
    if (vc.type !== 'int' && vc.type !== 'float') ctx.fail('params.values', `column '${values}' is ${vc.type}, not a number`);
    const wantAgg = ctx.params.aggfunc ?? 'mean';
    const aggfunc = PIVOT_AGGS.find((a) => a === wantAgg) ?? ctx.fail('params.aggfunc', `must be one of ${PIVOT_AGGS.join(', ')}`);
    const cats = ctx.params.categories;
    const want = cc.type === 'string' ? 'string' : 'number';
    if (!Array.isArray(cats) || cats.length === 0 || !cats.every((c): c is string | number => typeof c === want)) return ctx.fail('params.categories', `must be a list of the ${want} values of column '${columnsName}' that become columns`);
    const names = cats.map(String);
    if (new Set(names).size !== names.length || names.includes(index)) ctx.fail('params.categories', `must be distinct and differ from the index column '${index}'`);
    const spec = { by: [index, columnsName], aggs: [{ column: values, agg: aggfunc, as: '__value' }], ddof: 1 };
    const se = typeof ctx.params.split_every === 'number' ? ctx.params.split_every : 8;
    const partial = Math.min(f.partitionBytes, 1 << 20);
    const g = treeReduce(ctx, f.keys, { op: 'groupby-chunk', params: { spec } }, { op: 'groupby-combine', params: { spec } }, { op: 'groupby-aggregate', params: { spec } }, se, partial, f.partitionBytes);
    const key = ctx.key('pivot');
    emitDf(ctx, key, [g], 'pivot', { index, columns: columnsName, values: '__value', categories: cats }, partial, partial * 3);
    return { out: frameValue([key], [ic, ...names.map((n) => ({ name: n, type: 'float' as const }))], partial) };
  },
};

const resample: OpDef = {
  spec: {
    op: 'resample', label: 'Resample by period', category: 'dataframes',
    doc: "pandas' df.resample(freq, on=column).agg(...): aggregates per period of a timestamp column (periods that divide a day: '1D', '6h', '30min', '15s'; or weeks 'W' labelled by their Sunday, months 'M' by their last day, 'MS' by their first), empty periods included.",
    inputs: IN, outputs: OUT,
    params: [
      { name: 'on', kind: 'string', required: true, doc: 'a timestamp column' },
      { name: 'freq', kind: 'string', required: true, doc: "'1D', '6h', '30min', '15s', '500ms', 'W', 'M', 'MS'" },
      { name: 'aggs', kind: 'json', required: true, doc: '[{"column": "x", "agg": "mean"}, ...] as groupby' },
      { name: 'split_every', kind: 'number', integer: true, min: 2, default: 8 },
    ],
  },
  build(ctx) {
    const f = frameInput(ctx, 'df');
    const on = str(ctx, 'on');
    const [oc] = requireColumns(ctx, 'params.on', [on], f.columns);
    if (oc.type !== 'timestamp') ctx.fail('params.on', `column '${on}' is ${oc.type}, not a timestamp (read_csv's types: {"${on}": "timestamp"} parses it)`);
    let period = 0;
    const freq = str(ctx, 'freq');
    // Calendar periods bin by label; periodMs (kept positive for the task's schema) is then their nominal length.
    const calendar = calendarOf(freq);
    if (calendar) period = calendar === 'W' ? 7 * 86400000 : 31 * 86400000;
    else {
      try {
        period = periodMs(freq);
      } catch (e) {
        ctx.fail('params.freq', `${(e as Error).message.replace(/^resample: /, '')}, or a calendar period 'W', 'M' or 'MS'`);
      }
    }
    const { aggs, out } = checkAggs(ctx, f.columns, [oc]);
    // resample-fill gives an empty period 0 or null, which is not pandas' answer for these (prod: 1) and holds numbers only.
    aggs.forEach((a, i) => ['prod', 'first', 'last', 'median', 'idxmax', 'idxmin'].includes(a.agg) && ctx.fail(`params.aggs[${i}].agg`, `resample does not take ${a.agg} yet (groupby does); use sum, mean, count, min, max, std, var, nunique or size`));
    const spec = { by: [on], aggs, ddof: 1 };
    const cal = calendar ? { calendar } : {};
    const binned = mapPartitions(ctx, f, 'resample-bin', { on, periodMs: period, ...cal }, f.columns);
    const partial = Math.min(f.partitionBytes, 1 << 20);
    const g = treeReduce(ctx, binned.keys, { op: 'groupby-chunk', params: { spec } }, { op: 'groupby-combine', params: { spec } }, { op: 'groupby-aggregate', params: { spec } }, splitEvery(ctx), partial, f.partitionBytes);
    const zero = aggs.map((a, i) => ({ a, name: out[i + 1].name })).filter(({ a }) => ['sum', 'count', 'size', 'nunique'].includes(a.agg)).map(({ name }) => name);
    const key = ctx.key('resample-fill');
    emitDf(ctx, key, [g], 'resample-fill', { on, periodMs: period, zero, ...cal }, partial, partial * 3);
    return { out: frameValue([key], out, partial) };
  },
};

export const DF_WINDOW_OPS: OpDef[] = [rolling, resample, pivotTable];
