/**
 * Dataframe sources: read_csv and read_parquet (category 'files'), timeseries and from_array.
 * Each learns its schema at compile time (CSV: types inferred once from the first file's first
 * MiB and passed to every partition so partitions agree; Parquet: the footer's schema, read by
 * ranges) and emits one task per partition, counted from file metadata and bounded first.
 */
import { dfOpSpec } from '../../../../common/df/op-params';
import { parquetFooter } from '../../../../worker/kernels/df/parquet-file';
import { MAX_SOURCE_PARTITIONS } from '../../compile/limits';
import { inferCsvTypes, type CsvType } from '../../../../worker/kernels/df/csv-text';
import { TIMESERIES_COLUMNS } from '../../../../common/df/timeseries-columns';
import { checkedFileSize } from '../../paths';
import { materialize } from '../../compile/array-lower';
import { rechunk } from '../../compile/rechunk';
import { arrayInput, num } from '../arrays-core';
import type { BuildContext, OpDef } from '../types';
import { patternFiles } from './files';
import { frameValue, rowBytes, strList, type ColType, type DfColumn } from './meta';

const CSV_TYPES: CsvType[] = ['int', 'float', 'bool', 'string', 'timestamp'];

function csvTypesParam(ctx: BuildContext): Record<string, CsvType> | undefined {
  const v = ctx.params.types;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) return ctx.fail('params.types', 'must be an object mapping column names to int, float, bool, string or timestamp');
  const out: Record<string, CsvType> = {};
  for (const [k, t] of Object.entries(v)) {
    if (typeof t !== 'string' || !CSV_TYPES.includes(t as CsvType)) return ctx.fail(`params.types.${k}`, `must be one of ${CSV_TYPES.join(', ')}, got ${JSON.stringify(t)}`);
    out[k] = t as CsvType;
  }
  return out;
}

const readCsvOp: OpDef = {
  spec: {
    op: 'read_csv',
    label: 'Read CSV',
    category: 'files',
    doc: 'Reads a CSV file or a glob of files (* and ?), one partition per file or per blocksize bytes. Column types are inferred from the first file (or given); a malformed row names its file and line.',
    inputs: [],
    outputs: [{ name: 'out', type: 'dataframe' }],
    params: [
      { name: 'path', kind: 'string', path: 'glob', required: true, doc: 'file or glob, inside an allowed folder' },
      { name: 'blocksize', kind: 'number', integer: true, min: 1, doc: 'bytes per partition (default: one partition per file)' },
      { name: 'delimiter', kind: 'string', default: ',' },
      { name: 'header', kind: 'boolean', default: true, doc: 'first line names the columns (else c0, c1, ...)' },
      { name: 'types', kind: 'json', doc: '{"column": "int" | "float" | "bool" | "string" | "timestamp"}; the rest inferred' },
      { name: 'on_bad_lines', kind: 'enum', options: ['error', 'skip'], default: 'error' },
    ],
  },
  build(ctx) {
    const files = patternFiles(ctx, 'params.path', 'CSV files');
    const delimiter = typeof ctx.params.delimiter === 'string' ? ctx.params.delimiter : ',';
    if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n') ctx.fail('params.delimiter', `must be one character other than a quote or newline, got ${JSON.stringify(delimiter)}`);
    const header = ctx.params.header !== false;
    const given = csvTypesParam(ctx);
    const blocksize = typeof ctx.params.blocksize === 'number' ? ctx.params.blocksize : undefined;
    // Counted from file sizes before anything is read or emitted (issue 19: blocksize 1 on 30 MB made
    // 30 million tasks and exhausted the heap while compiling).
    const sizes = files.map((f) => checkedFileSize(f, 'params.path', ctx));
    const partitions = sizes.reduce((n, size) => n + (!blocksize || size === 0 ? 1 : Math.ceil(size / blocksize)), 0);
    if (partitions > MAX_SOURCE_PARTITIONS) {
      const total = sizes.reduce((a, b) => a + b, 0);
      ctx.fail('params.blocksize', `${blocksize} bytes per partition makes ${partitions} tasks for ${total} bytes of CSV, more than ${MAX_SOURCE_PARTITIONS}: use a blocksize of at least ${Math.ceil(total / MAX_SOURCE_PARTITIONS)}`);
    }
    let inferred: Record<string, CsvType>;
    try {
      inferred = inferCsvTypes(files[0], { delimiter, header });
    } catch (e) {
      return ctx.fail('params.path', e instanceof Error ? e.message : String(e));
    }
    for (const k of Object.keys(given ?? {})) {
      if (!(k in inferred)) ctx.fail(`params.types.${k}`, `unknown column '${k}'; available columns: ${Object.keys(inferred).join(', ')}`);
    }
    const types = { ...inferred, ...given };
    const columns: DfColumn[] = Object.keys(inferred).map((name) => ({ name, type: types[name] }));
    const onBadLines = ctx.params.on_bad_lines === 'skip' ? 'skip' : 'error';
    const keys: string[] = [];
    let maxBytes = 0;
    for (const [f, path] of files.entries()) {
      const size = sizes[f];
      // Same ranges as dask's read_bytes: a line belongs to the range holding its first byte.
      // Every range ends at a byte offset seen now, so rows appended during the run are not read.
      const ranges: [number, number][] = [];
      if (!blocksize || size === 0) ranges.push([0, size]);
      else for (let s = 0; s < size; s += blocksize) ranges.push([s, Math.min(s + blocksize, size)]);
      for (const [start, end] of ranges) {
        const key = ctx.key('read', [keys.length]);
        const textBytes = end - start;
        maxBytes = Math.max(maxBytes, textBytes);
        ctx.emit({ key, deps: [], spec: dfOpSpec('read-csv', { path, start, end, delimiter, header, types, onBadLines }), resource: 'any', op: 'read_csv', outBytes: textBytes * 2, workBytes: textBytes * 6 });
        keys.push(key);
      }
    }
    return { out: frameValue(keys, columns, maxBytes * 2) };
  },
};

/** Expression type of a Parquet leaf, as worker/kernels/df/parquet.ts packs it. */
function parquetType(e: { type?: string; converted_type?: string; logical_type?: { type: string } }): ColType {
  const lt = e.logical_type?.type;
  const ct = e.converted_type;
  if (lt === 'TIMESTAMP' || lt === 'DATE' || ct === 'TIMESTAMP_MILLIS' || ct === 'TIMESTAMP_MICROS' || ct === 'DATE' || e.type === 'INT96') return 'timestamp';
  if (lt === 'STRING' || ct === 'UTF8' || e.type === 'BYTE_ARRAY') return 'string';
  if (e.type === 'BOOLEAN') return 'bool';
  if (e.type === 'INT32' || e.type === 'INT64') return 'int';
  return 'float';
}

const readParquetOp: OpDef = {
  spec: {
    op: 'read_parquet',
    label: 'Read Parquet',
    category: 'files',
    doc: 'Reads a Parquet file or a glob of files (* and ?), one partition per row group; only the chosen columns are decoded.',
    inputs: [],
    outputs: [{ name: 'out', type: 'dataframe' }],
    params: [
      { name: 'path', kind: 'string', path: 'glob', required: true, doc: 'file or glob, inside an allowed folder' },
      { name: 'columns', kind: 'strings', doc: 'columns to read (default: all)' },
    ],
  },
  build(ctx) {
    const files = patternFiles(ctx, 'params.path', 'Parquet files');
    const want = strList(ctx, 'columns', false);
    let columns: DfColumn[] | null = null;
    let rowGroups = 0;
    const keys: string[] = [];
    let maxBytes = 0;
    for (const path of files) {
      let md: ReturnType<typeof parquetFooter>;
      try {
        // Only the footer, by ranged reads: files of any size, no stall of main's loop.
        md = parquetFooter(path);
      } catch (e) {
        return ctx.fail('params.path', `${path} is not a readable Parquet file: ${e instanceof Error ? e.message : String(e)}`);
      }
      // Flat schemas only: the root's children are the columns.
      const cols: DfColumn[] = md.schema.slice(1).map((el) => ({ name: el.name, type: parquetType(el as Parameters<typeof parquetType>[0]) }));
      if (columns === null) columns = cols;
      else if (JSON.stringify(cols) !== JSON.stringify(columns)) {
        ctx.fail('params.path', `${path} has columns ${cols.map((c) => `${c.name} (${c.type})`).join(', ')} but ${files[0]} has ${columns.map((c) => `${c.name} (${c.type})`).join(', ')}`);
      }
      rowGroups += md.row_groups.length;
      if (rowGroups > MAX_SOURCE_PARTITIONS) ctx.fail('params.path', `the files have more than ${MAX_SOURCE_PARTITIONS} row groups (one task each)`);
      md.row_groups.forEach((rg, i) => {
        const key = ctx.key('read', [keys.length]);
        const bytes = Number(rg.num_rows) * rowBytes(want ? cols.filter((c) => want.includes(c.name)) : cols);
        maxBytes = Math.max(maxBytes, bytes);
        ctx.emit({ key, deps: [], spec: dfOpSpec('read-parquet', { path, rowGroup: i, ...(want ? { columns: want } : {}) }), resource: 'any', op: 'read_parquet', outBytes: bytes, workBytes: bytes * 3 + Number(rg.total_byte_size) });
        keys.push(key);
      });
    }
    let cols = columns ?? [];
    if (want) {
      cols = want.map((n) => cols.find((c) => c.name === n) ?? ctx.fail('params.columns', `unknown column '${n}'; available columns: ${cols.map((c) => c.name).join(', ')}`));
    }
    return { out: frameValue(keys, cols, maxBytes) };
  },
};

const TS_TYPES: Record<string, ColType> = { timestamp: 'timestamp', id: 'int', name: 'string', x: 'float', y: 'float' };

const timeseriesOp: OpDef = {
  spec: {
    op: 'timeseries',
    label: 'Timeseries',
    category: 'dataframes',
    doc: 'A seeded synthetic table like dask.datasets.timeseries: timestamp (1 s apart from 2000-01-01), id, name, x and y; any partitioning of a seed gives the same rows.',
    inputs: [],
    outputs: [{ name: 'out', type: 'dataframe' }],
    params: [
      { name: 'seed', kind: 'number', integer: true, min: 0, max: 2 ** 32 - 1, default: 0 },
      { name: 'partitions', kind: 'number', integer: true, min: 1, default: 30 },
      { name: 'rows_per_partition', kind: 'number', integer: true, min: 1, default: 86400 },
      { name: 'columns', kind: 'strings', doc: `subset of ${TIMESERIES_COLUMNS.join(', ')} (default: all)` },
    ],
  },
  // One task a partition: a count past the graph's bound is refused before any is built (a
  // fuzzed partitions=1e9 built two million tasks, six seconds, before the bound stopped it).
  minTasks: (ctx) => num(ctx, 'partitions'),
  build(ctx) {
    const seed = num(ctx, 'seed');
    const parts = num(ctx, 'partitions');
    const rows = num(ctx, 'rows_per_partition');
    const want = strList(ctx, 'columns', false)?.map((c) => TIMESERIES_COLUMNS.find((t) => t === c) ?? ctx.fail('params.columns', `unknown column '${c}'; available columns: ${TIMESERIES_COLUMNS.join(', ')}`));
    // The kernel generates the chosen columns in the standard order.
    const names = TIMESERIES_COLUMNS.filter((c) => !want || want.includes(c));
    const columns = names.map((name) => ({ name, type: TS_TYPES[name] }));
    const bytes = rows * rowBytes(columns);
    const keys: string[] = [];
    for (let p = 0; p < parts; p++) {
      const key = ctx.key('part', [p]);
      ctx.emit({ key, deps: [], spec: dfOpSpec('timeseries', { seed, partition: p, rows, ...(want ? { columns: want } : {}) }), resource: 'any', op: 'timeseries', outBytes: bytes, workBytes: bytes * 2 });
      keys.push(key);
    }
    return { out: frameValue(keys, columns, bytes, true) };
  },
};

const fromArrayOp: OpDef = {
  spec: {
    op: 'from_array',
    label: 'From array',
    category: 'dataframes',
    doc: 'A 1-D array as one column (value), or a 2-D array as one column per array column (c0, c1, ...); one partition per block of rows.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [{ name: 'out', type: 'dataframe' }],
    params: [{ name: 'columns', kind: 'strings', doc: 'column names (default value, or c0, c1, ...)' }],
  },
  build(ctx) {
    let x = arrayInput(ctx, 'x');
    if (x.shape.length !== 1 && x.shape.length !== 2) ctx.fail('inputs.x', `needs a 1-D or 2-D array, got shape [${x.shape.join(', ')}]`);
    const k = x.shape.length === 1 ? 1 : x.shape[1];
    const names = strList(ctx, 'columns', false) ?? Array.from({ length: k }, (_, j) => (k === 1 ? 'value' : `c${j}`));
    if (names.length !== k) ctx.fail('params.columns', `names ${names.length} columns but the array has ${k}`);
    // A partition holds whole rows: blocks split across columns are joined first.
    if (x.shape.length === 2 && x.chunks[1].length > 1) x = rechunk(x, [x.chunks[0], [k]], ctx, 'rows');
    x = materialize(x, ctx, 'block');
    const type: ColType = x.dtype.startsWith('int') ? 'int' : 'float';
    const columns = names.map((name) => ({ name, type }));
    const keys: string[] = [];
    x.chunks[0].forEach((rows, i) => {
      const dep = x.block(x.shape.length === 1 ? [i] : [i, 0]).deps[0];
      const key = ctx.key('part', [i]);
      ctx.emit({ key, deps: [dep], spec: dfOpSpec('from-array', { columns: names }), resource: 'any', op: 'from_array', outBytes: rows * rowBytes(columns), workBytes: rows * rowBytes(columns) * 2 });
      keys.push(key);
    });
    return { out: frameValue(keys, columns, Math.max(...x.chunks[0]) * rowBytes(columns)) };
  },
};

export const DF_SOURCE_OPS: OpDef[] = [readCsvOp, readParquetOp, timeseriesOp, fromArrayOp];
