/**
 * The dataframe task ops, shaped for the worker: each op names how many input partitions it takes,
 * a zod schema of its params (checked at the process boundary, errors naming the field), and a
 * pure function from input tables to an output table (or a small JSON value). register.ts binds
 * them to the worker's handler registry; tests call runDfOp directly.
 *
 * Shuffles are two ops: 'hash-split' reorders a partition's rows by target part and records each
 * part's row range in the schema metadata (so one task output carries all k parts); 'gather-part'
 * takes the split outputs of every input partition and concatenates their part p.
 */
import * as z from 'zod';
import type { Table } from 'apache-arrow';
import type { JsonValue, NDArray } from '../../../common/arrays';
import { DF_OP_PARAMS, isDfOp, type DfOp, type DfOpParams } from '../../../common/df/op-params';
import { readCsv } from './csv';
import { describe, nunique, quantile } from './describe';
import { dropna, fillna, isna } from './missing';
import { rowCount, rowNumber, scan, scanCarry, shift } from './scan';
import { mapValues } from './map-values';
import { pivot, rolling, timeTail } from './window';
import { resampleBin, resampleFill } from './resample';
import { tableFromArray } from './from-array';
import { concatTables, takeTable } from './gather';
import { groupbyAggregate, groupbyChunk, groupbyCombine } from './groupby';
import { hashRows } from './keys';
import { broadcastJoin, hashJoin } from './join';
import { assign, drop, filter, head, rename, select, tail } from './ops';
import { readParquet, writeParquet } from './parquet';
import { dropDuplicates, valueCountsAggregate, valueCountsChunk } from './rows';
import { chooseSplitters, partOf, rangeSplit, sortPart, sortSample, splitByPart } from './range-sort';
import { sortTable } from './sort';
import { timeseriesPartition } from './timeseries';
import { timeseriesGroupbyChunk } from './timeseries-groupby';

export type DfInput = { kind: 'table'; table: Table } | { kind: 'array'; array: NDArray };
export type DfOutput = { kind: 'table'; table: Table } | { kind: 'json'; value: JsonValue };

interface OpDef<S extends z.ZodType> {
  /** Number of input partitions, or 'many' (at least one). */
  inputs: number | 'many';
  params: S;
  run(p: z.infer<S>, inputs: DfInput[]): DfOutput | Promise<DfOutput>;
}

function def<S extends z.ZodType>(d: OpDef<S>): OpDef<S> {
  return d;
}

function tables(inputs: DfInput[], op: string): Table[] {
  return inputs.map((x, i) => {
    if (x.kind !== 'table') throw new Error(`df ${op}: input ${i} is an array, expected a dataframe partition`);
    return x.table;
  });
}
const out = (table: Table): DfOutput => ({ kind: 'table', table });

export const DF_OPS = {
  timeseries: def({
    inputs: 0,
    params: DF_OP_PARAMS.timeseries,
    run: (p) => out(timeseriesPartition(p.seed, p.partition, p.rows, { startMs: p.startMs, freqMs: p.freqMs, columns: p.columns })),
  }),
  'read-csv': def({
    inputs: 0,
    params: DF_OP_PARAMS['read-csv'],
    run: (p) => {
      const { path, start, end, ...opts } = p;
      return out(readCsv({ path, start, end }, opts).table);
    },
  }),
  'read-parquet': def({
    inputs: 0,
    params: DF_OP_PARAMS['read-parquet'],
    run: async (p) => out(await readParquet({ path: p.path, rowGroup: p.rowGroup }, p.columns)),
  }),
  'write-parquet': def({
    inputs: 1,
    params: DF_OP_PARAMS['write-parquet'],
    run: (p, i) => {
      const [t] = tables(i, 'write-parquet');
      writeParquet(t, p.path, p.rowGroupSize);
      return { kind: 'json', value: { path: p.path, rows: t.numRows } };
    },
  }),
  'from-array': def({
    inputs: 1,
    params: DF_OP_PARAMS['from-array'],
    run: (p, i) => {
      const x = i[0];
      if (x.kind !== 'array') throw new Error('df from-array: the input must be an array');
      return out(tableFromArray(x.array, p.columns));
    },
  }),
  select: def({ inputs: 1, params: DF_OP_PARAMS.select, run: (p, i) => out(select(tables(i, 'select')[0], p.columns)) }),
  drop: def({ inputs: 1, params: DF_OP_PARAMS.drop, run: (p, i) => out(drop(tables(i, 'drop')[0], p.columns)) }),
  rename: def({ inputs: 1, params: DF_OP_PARAMS.rename, run: (p, i) => out(rename(tables(i, 'rename')[0], p.mapping)) }),
  filter: def({ inputs: 1, params: DF_OP_PARAMS.filter, run: (p, i) => out(filter(tables(i, 'filter')[0], p.expr)) }),
  assign: def({ inputs: 1, params: DF_OP_PARAMS.assign, run: (p, i) => out(assign(tables(i, 'assign')[0], p.exprs)) }),
  head: def({ inputs: 'many', params: DF_OP_PARAMS.head, run: (p, i) => out(head(concatTables(tables(i, 'head')), p.n)) }),
  tail: def({ inputs: 'many', params: DF_OP_PARAMS.tail, run: (p, i) => out(tail(concatTables(tables(i, 'tail')), p.n)) }),
  sort: def({ inputs: 'many', params: DF_OP_PARAMS.sort, run: (p, i) => out(sortTable(concatTables(tables(i, 'sort')), p.by, p.ascending)) }),
  // The distributed sort (range-sort.ts): sample -> splitters -> range-split -> sort-part.
  'sort-sample': def({ inputs: 1, params: DF_OP_PARAMS['sort-sample'], run: (p, i) => out(sortSample(tables(i, 'sort-sample')[0], p.by, p.count)) }),
  'sort-splitters': def({ inputs: 'many', params: DF_OP_PARAMS['sort-splitters'], run: (p, i) => out(chooseSplitters(tables(i, 'sort-splitters'), p.by, p.ascending ?? true, p.parts)) }),
  'range-split': def({ inputs: 2, params: DF_OP_PARAMS['range-split'], run: (p, i) => { const [t, s] = tables(i, 'range-split'); return out(rangeSplit(t, s, p.by, p.ascending ?? true, p.parts)); } }),
  'sort-part': def({ inputs: 'many', params: DF_OP_PARAMS['sort-part'], run: (p, i) => out(sortPart(tables(i, 'sort-part'), p.part, p.by, p.ascending ?? true)) }),
  concat: def({ inputs: 'many', params: DF_OP_PARAMS.concat, run: (_p, i) => out(concatTables(tables(i, 'concat'))) }),
  'drop-duplicates': def({ inputs: 'many', params: DF_OP_PARAMS['drop-duplicates'], run: (p, i) => out(dropDuplicates(concatTables(tables(i, 'drop-duplicates')), p.subset, p.keep)) }),
  'value-counts-chunk': def({ inputs: 1, params: DF_OP_PARAMS['value-counts-chunk'], run: (p, i) => out(valueCountsChunk(tables(i, 'value-counts-chunk')[0], p.column, p.dropna)) }),
  'value-counts-aggregate': def({ inputs: 'many', params: DF_OP_PARAMS['value-counts-aggregate'], run: (p, i) => out(valueCountsAggregate(tables(i, 'value-counts-aggregate'), p.column, p)) }),
  describe: def({ inputs: 'many', params: DF_OP_PARAMS.describe, run: (p, i) => out(describe(concatTables(tables(i, 'describe')), p.percentiles)) }),
  quantile: def({ inputs: 'many', params: DF_OP_PARAMS.quantile, run: (p, i) => out(quantile(concatTables(tables(i, 'quantile')), p.q)) }),
  nunique: def({ inputs: 'many', params: DF_OP_PARAMS.nunique, run: (p, i) => out(nunique(concatTables(tables(i, 'nunique')), p.columns)) }),
  'slice-part': def({
    inputs: 1,
    params: DF_OP_PARAMS['slice-part'],
    run: (p, i) => {
      const [t] = tables(i, 'slice-part');
      if (p.part >= p.parts) throw new Error(`df slice-part: part ${p.part} of ${p.parts} does not exist`);
      return out(t.slice(Math.floor((p.part * t.numRows) / p.parts), Math.floor(((p.part + 1) * t.numRows) / p.parts)));
    },
  }),
  'map-values': def({ inputs: 1, params: DF_OP_PARAMS['map-values'], run: (p, i) => out(mapValues(tables(i, 'map-values')[0], p)) }),
  // Row-order scans (scan.ts): a carry per partition, then each partition with the carries it needs.
  'scan-carry': def({ inputs: 1, params: DF_OP_PARAMS['scan-carry'], run: (p, i) => out(scanCarry(tables(i, 'scan-carry')[0], p)) }),
  // Inputs: the carries of the earlier partitions then the partition (bfill: the partition then the later carries).
  scan: def({
    inputs: 'many',
    params: DF_OP_PARAMS.scan,
    run: (p, i) => {
      const t = tables(i, 'scan');
      return out(p.op === 'bfill' ? scan(t[0], t.slice(1), p) : scan(t[t.length - 1], t.slice(0, -1), p));
    },
  }),
  'row-count': def({ inputs: 1, params: DF_OP_PARAMS['row-count'], run: (_p, i) => out(rowCount(tables(i, 'row-count')[0])) }),
  // Inputs: the row counts of the earlier partitions, then the partition.
  'row-number': def({
    inputs: 'many',
    params: DF_OP_PARAMS['row-number'],
    run: (p, i) => {
      const t = tables(i, 'row-number');
      return out(rowNumber(t[t.length - 1], t.slice(0, -1), p.name));
    },
  }),
  // Inputs: the tails of the earlier partitions then the partition (periods < 0: the partition then the heads of the later ones).
  shift: def({
    inputs: 'many',
    params: DF_OP_PARAMS.shift,
    run: (p, i) => {
      const t = tables(i, 'shift');
      return out(p.periods < 0 ? shift(t[0], t.slice(1), p) : shift(t[t.length - 1], t.slice(0, -1), p));
    },
  }),
  // Inputs: the tails of the earlier partitions, then the partition itself (window.ts).
  rolling: def({
    inputs: 'many',
    params: DF_OP_PARAMS.rolling,
    run: (p, i) => {
      const t = tables(i, 'rolling');
      return out(rolling(t.slice(0, -1), t[t.length - 1], p));
    },
  }),
  'rolling-time-tail': def({ inputs: 1, params: DF_OP_PARAMS['rolling-time-tail'], run: (p, i) => out(timeTail(tables(i, 'rolling-time-tail')[0], p.on, p.windowMs)) }),
  'resample-bin': def({ inputs: 1, params: DF_OP_PARAMS['resample-bin'], run: (p, i) => out(resampleBin(tables(i, 'resample-bin')[0], p.on, p.periodMs, p.calendar)) }),
  'resample-fill': def({ inputs: 1, params: DF_OP_PARAMS['resample-fill'], run: (p, i) => out(resampleFill(tables(i, 'resample-fill')[0], p.on, p.periodMs, p.zero, p.calendar)) }),
  pivot: def({
    inputs: 1,
    params: DF_OP_PARAMS.pivot,
    run: (p, i) => out(pivot(tables(i, 'pivot')[0], p)),
  }),
  isna: def({ inputs: 1, params: DF_OP_PARAMS.isna, run: (p, i) => out(isna(tables(i, 'isna')[0], p.columns)) }),
  fillna: def({ inputs: 1, params: DF_OP_PARAMS.fillna, run: (p, i) => out(fillna(tables(i, 'fillna')[0], p.value, p.columns)) }),
  dropna: def({ inputs: 1, params: DF_OP_PARAMS.dropna, run: (p, i) => out(dropna(tables(i, 'dropna')[0], p.subset, p.how, p.thresh)) }),
  'groupby-chunk': def({ inputs: 1, params: DF_OP_PARAMS['groupby-chunk'], run: (p, i) => out(groupbyChunk(tables(i, 'groupby-chunk')[0], p.spec)) }),
  // A timeseries partition generated and grouped in one step (compile/df-fuse.ts).
  'timeseries-groupby-chunk': def({ inputs: 0, params: DF_OP_PARAMS['timeseries-groupby-chunk'], run: (p) => out(timeseriesGroupbyChunk(p.source, p.spec)) }),
  'groupby-combine': def({ inputs: 'many', params: DF_OP_PARAMS['groupby-combine'], run: (p, i) => out(groupbyCombine(tables(i, 'groupby-combine'), p.spec)) }),
  'groupby-aggregate': def({ inputs: 'many', params: DF_OP_PARAMS['groupby-aggregate'], run: (p, i) => out(groupbyAggregate(tables(i, 'groupby-aggregate'), p.spec)) }),
  'hash-split': def({
    inputs: 1,
    params: DF_OP_PARAMS['hash-split'],
    run: (p, i) => out(hashSplit(tables(i, 'hash-split')[0], p.keys, p.k)),
  }),
  'gather-part': def({
    inputs: 'many',
    params: DF_OP_PARAMS['gather-part'],
    run: (p, i) => out(concatTables(tables(i, 'gather-part').map((t) => partOf(t, p.part)))),
  }),
  join: def({ inputs: 2, params: DF_OP_PARAMS.join, run: (p, i) => { const [l, r] = tables(i, 'join'); return out(hashJoin(l, r, p.spec)); } }),
  'broadcast-join': def({ inputs: 2, params: DF_OP_PARAMS['broadcast-join'], run: (p, i) => { const [l, r] = tables(i, 'broadcast-join'); return out(broadcastJoin(l, r, p.spec)); } }),
} satisfies { [Op in DfOp]: OpDef<z.ZodType<DfOpParams<Op>>> };


/** Rows grouped by hash part (stable within a part); part p's range [off[p], off[p+1]) in metadata. */
export function hashSplit(table: Table, keys: string[], k: number): Table {
  const h = hashRows(table, keys, 'hash split');
  const part = new Int32Array(h.length);
  for (let i = 0; i < h.length; i++) part[i] = h[i] % k;
  return splitByPart(table, part, k);
}

export { partOf };

function formatIssues(op: string, error: z.ZodError): string {
  return error.issues.map((i) => `df ${op}: params${i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${i.message}`).join('; ');
}

/** Runs op `op` on its inputs; params are checked first (errors name the op and the field). */
export async function runDfOp(op: string, params: unknown, inputs: DfInput[]): Promise<DfOutput> {
  if (!isDfOp(op)) throw new Error(`df: unknown op '${op}'; ops are ${Object.keys(DF_OPS).join(', ')}`);
  const d: OpDef<z.ZodType> = DF_OPS[op];
  const want = d.inputs;
  if (want === 'many' ? inputs.length < 1 : inputs.length !== want) {
    throw new Error(`df ${op}: takes ${want === 'many' ? 'at least 1' : want} input${want === 1 ? '' : 's'}, got ${inputs.length}`);
  }
  const parsed = d.params.safeParse(params);
  if (!parsed.success) throw new Error(formatIssues(op, parsed.error));
  return d.run(parsed.data, inputs);
}
