/**
 * Typed task params of the dataframe ops: one zod schema per op, shared by the compiler in main
 * (which emits a df task with `emitDf` / `dfOpSpec`, so a misspelt or missing param is a type
 * error there) and the worker (worker/kernels/df/task-ops.ts runs each op on the params its
 * schema parsed; a message that does not match is refused there, naming the op and the field).
 *
 * A new df op: its schema here, its kernel in task-ops.ts under the same name, then main emits
 * it (CONTRIBUTING.md, "Typed task params").
 */
import * as z from 'zod';
import { opTable, type OpOf, type OpParamsOf } from '../op-schemas';
import { AGGS } from '../df-aggs';
import { TIMESERIES_COLUMNS } from './timeseries-columns';

/** Merge's `how`: pandas' four, and leftsemi / leftanti (the left rows with / without a match). */
export const JOIN_HOWS = ['inner', 'left', 'right', 'outer', 'leftsemi', 'leftanti'] as const;
export type JoinHow = (typeof JOIN_HOWS)[number];

const names = z.array(z.string().min(1)).min(1);
const groupbySpec = z
  .object({
    by: names,
    aggs: z.array(z.object({ column: z.string().optional(), agg: z.enum(AGGS), as: z.string().optional() })).min(1),
    ddof: z.number().int().min(0).optional(),
    index: z.string().min(1).optional(),
    dropna: z.boolean().optional(),
  })
  .strict();
const timeseriesSource = z
  .object({
    seed: z.number().int().min(0),
    partition: z.number().int().min(0),
    rows: z.number().int().min(0),
    startMs: z.number().optional(),
    freqMs: z.number().positive().optional(),
  })
  .strict();
const joinSpec = z
  .object({
    how: z.enum(JOIN_HOWS),
    on: names.optional(),
    leftOn: names.optional(),
    rightOn: names.optional(),
    suffixes: z.tuple([z.string(), z.string()]).optional(),
    nulls: z.enum(['match', 'never']).optional(),
  })
  .strict();
/** Row-order scans (worker/kernels/df/scan.ts): cumulative ops, and fills. */
export const CUM_OPS = ['cumsum', 'cumprod', 'cummax', 'cummin'] as const;
export const FILL_OPS = ['ffill', 'bfill'] as const;
const scanSpec = z.object({ op: z.enum([...CUM_OPS, ...FILL_OPS]), columns: names, suffix: z.string().optional() }).strict();
/** Calendar periods of resample: week, month end, month start. */
const calendar = z.enum(['W', 'M', 'MS']);
const ascending = z.union([z.boolean(), z.array(z.boolean())]);
const csvType = z.enum(['int', 'float', 'bool', 'string', 'timestamp']);
const rollingAgg = z.enum(['sum', 'mean', 'min', 'max', 'std', 'var', 'count']);
const whole = z.number().int().min(0);
const fraction = z.number().min(0).max(1);

const SCHEMAS = {
  timeseries: timeseriesSource.extend({ columns: z.array(z.enum(TIMESERIES_COLUMNS)).optional() }).strict(),
  'read-csv': z
    .object({
      path: z.string().min(1),
      start: whole,
      end: whole.nullable(),
      delimiter: z.string().length(1).optional(),
      header: z.boolean().optional(),
      names: names.optional(),
      types: z.record(z.string(), csvType).optional(),
      onBadLines: z.enum(['error', 'skip']).optional(),
    })
    .strict(),
  'read-parquet': z.object({ path: z.string().min(1), rowGroup: whole.optional(), columns: names.optional() }).strict(),
  'write-parquet': z.object({ path: z.string().min(1), rowGroupSize: z.number().int().positive().optional() }).strict(),
  'from-array': z.object({ columns: names.optional() }).strict(),
  select: z.object({ columns: names }).strict(),
  drop: z.object({ columns: names }).strict(),
  rename: z.object({ mapping: z.record(z.string(), z.string().min(1)) }).strict(),
  filter: z.object({ expr: z.string().min(1) }).strict(),
  assign: z.object({ exprs: z.record(z.string(), z.string().min(1)) }).strict(),
  head: z.object({ n: whole }).strict(),
  tail: z.object({ n: whole }).strict(),
  sort: z.object({ by: names, ascending: ascending.optional() }).strict(),
  // The distributed sort (worker range-sort.ts): sample -> splitters -> range-split -> sort-part.
  'sort-sample': z.object({ by: names, count: z.number().int().min(1) }).strict(),
  'sort-splitters': z.object({ by: names, ascending: ascending.optional(), parts: z.number().int().positive() }).strict(),
  'range-split': z.object({ by: names, ascending: ascending.optional(), parts: z.number().int().positive().optional() }).strict(),
  'sort-part': z.object({ by: names, ascending: ascending.optional(), part: whole }).strict(),
  concat: z.object({}).strict(),
  'drop-duplicates': z.object({ subset: names.optional(), keep: z.enum(['first', 'last', 'none']).optional() }).strict(),
  'value-counts-chunk': z.object({ column: z.string().min(1), dropna: z.boolean().optional() }).strict(),
  'value-counts-aggregate': z.object({ column: z.string().min(1), dropna: z.boolean().optional(), normalize: z.boolean().optional() }).strict(),
  describe: z.object({ percentiles: z.array(fraction).optional() }).strict(),
  quantile: z.object({ q: z.array(fraction).min(1) }).strict(),
  nunique: z.object({ columns: names.optional() }).strict(),
  // Rows [floor(part N / parts), floor((part + 1) N / parts)) of the partition: repartition's even split.
  'slice-part': z.object({ part: whole, parts: z.number().int().min(1) }).strict(),
  'map-values': z
    .object({
      column: z.string().min(1),
      mapping: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])),
      as: z.string().min(1).optional(),
      type: z.enum(['int', 'float', 'string', 'bool']),
    })
    .strict(),
  // Row-order scans: a carry per partition, then each partition with the carries it needs.
  'scan-carry': scanSpec,
  scan: scanSpec,
  // reset_index: a partition's row count, then each partition numbered after the counts of those before it.
  'row-count': z.object({}).strict(),
  'row-number': z.object({ name: z.string().min(1) }).strict(),
  shift: z.object({ periods: z.number().int(), columns: names, suffix: z.string().optional(), diff: z.boolean().optional() }).strict(),
  rolling: z
    .object({
      window: z.number().int().min(1),
      on: z.string().min(1).optional(),
      windowMs: z.number().positive().optional(),
      minPeriods: whole.optional(),
      cols: z.array(z.object({ column: z.string().min(1), agg: rollingAgg, as: z.string().min(1) }).strict()).min(1),
    })
    .strict(),
  'rolling-time-tail': z.object({ on: z.string().min(1), windowMs: z.number().positive() }).strict(),
  'resample-bin': z.object({ on: z.string().min(1), periodMs: z.number().int().positive(), calendar: calendar.optional() }).strict(),
  'resample-fill': z
    .object({ on: z.string().min(1), periodMs: z.number().int().positive(), zero: z.array(z.string()), calendar: calendar.optional() })
    .strict(),
  pivot: z
    .object({ index: z.string().min(1), columns: z.string().min(1), values: z.string().min(1), categories: z.array(z.union([z.string(), z.number()])).min(1) })
    .strict(),
  isna: z.object({ columns: names.optional() }).strict(),
  fillna: z.object({ value: z.union([z.number(), z.string(), z.boolean()]), columns: names.optional() }).strict(),
  dropna: z.object({ subset: names.optional(), how: z.enum(['any', 'all']).optional(), thresh: whole.optional() }).strict(),
  'groupby-chunk': z.object({ spec: groupbySpec }).strict(),
  // A timeseries partition generated and grouped in one step (main/engine/compile/df-fuse.ts).
  'timeseries-groupby-chunk': z.object({ source: timeseriesSource, spec: groupbySpec }).strict(),
  'groupby-combine': z.object({ spec: groupbySpec }).strict(),
  'groupby-aggregate': z.object({ spec: groupbySpec }).strict(),
  /** Rows grouped by the hash of `keys` into `k` parts, each part's range in the metadata. */
  'hash-split': z.object({ keys: names, k: z.number().int().positive() }).strict(),
  /** Part `part` of every input's hash split, concatenated. */
  'gather-part': z.object({ part: whole }).strict(),
  join: z.object({ spec: joinSpec }).strict(),
  'broadcast-join': z.object({ spec: joinSpec }).strict(),
};

/** The df ops' table (common/op-schemas.ts): the guard, main's spec builder, the worker's parsers. */
export const DF_OP_TABLE = opTable('df', SCHEMAS);
export const { schemas: DF_OP_PARAMS, has: isDfOp, spec: dfOpSpec, parseOrNull: dfParamsOrNull } = DF_OP_TABLE;
export type DfOp = OpOf<typeof DF_OP_TABLE>;
export type DfOpParams<Op extends DfOp> = OpParamsOf<typeof DF_OP_TABLE, Op>;
