/**
 * Parquet source and sink through hyparquet / hyparquet-writer (pure JS, no native code).
 * A partition is one row group of one file; reading decodes only the requested columns of that
 * row group. Hyparquet gives plain JS values (numbers, bigints, strings, Dates, null), which are
 * packed into Arrow columns here: doubles/floats -> Float64, ints -> Int64 (Int32 stays Int32),
 * booleans -> Bool, strings -> dictionary Utf8, timestamps/dates -> TimestampMillisecond.
 * INT64 travels as bigints both ways (BigInt64Array <-> Arrow Int64), so values beyond 2^53 keep
 * every digit, as pandas' int64 does.
 */
import { writeFileNoFollow } from '../../../common/safe-files';
import { DataType, type Table, type Vector } from 'apache-arrow';
import { parquetReadObjects, parquetSchema } from 'hyparquet';
import { fileAsyncBuffer, parquetFooter } from './parquet-file';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { boolVector, floatVector, int32Vector, int64Vector, stringVector, timestampVector } from './build';
import { boolView, int64View, numView, strView, valueTypeOf } from './columns';
import { expandGlob } from './glob';
import { tableOf } from './gather';

export interface ParquetPart {
  path: string;
  rowGroup: number;
  /** Rows of the file covered by this row group: [rowStart, rowEnd). */
  rowStart: number;
  rowEnd: number;
}

/** The file's footer by ranged reads (parquet-file.ts), errors naming the file. */
function metadataOf(path: string) {
  try {
    return parquetFooter(path);
  } catch (e) {
    throw new Error(`parquet: ${path} is not a readable Parquet file: ${(e as Error).message}`);
  }
}

/** One partition per row group of each file matching `pattern`. */
export function parquetPartitions(pattern: string): ParquetPart[] {
  const files = expandGlob(pattern);
  if (files.length === 0) throw new Error(`parquet: no files match ${pattern}`);
  const parts: ParquetPart[] = [];
  for (const path of files) {
    const md = metadataOf(path);
    let at = 0;
    md.row_groups.forEach((rg, i) => {
      const n = Number(rg.num_rows);
      parts.push({ path, rowGroup: i, rowStart: at, rowEnd: at + n });
      at += n;
    });
  }
  return parts;
}

type Kind = 'float' | 'int64' | 'int32' | 'bool' | 'string' | 'timestamp';

function kindOf(element: { type?: string; converted_type?: string; logical_type?: { type: string } }): Kind {
  const lt = element.logical_type?.type;
  const ct = element.converted_type;
  if (lt === 'TIMESTAMP' || lt === 'DATE' || ct === 'TIMESTAMP_MILLIS' || ct === 'TIMESTAMP_MICROS' || ct === 'DATE') return 'timestamp';
  if (lt === 'STRING' || ct === 'UTF8' || element.type === 'BYTE_ARRAY') return 'string';
  switch (element.type) {
    case 'BOOLEAN': return 'bool';
    case 'INT32': return 'int32';
    case 'INT64': return 'int64';
    case 'INT96': return 'timestamp';
    default: return 'float';
  }
}

function toVector(values: unknown[], kind: Kind): Vector {
  const n = values.length;
  const valid = new Uint8Array(n);
  if (kind === 'string') {
    const index = new Map<string, number>();
    const dict: string[] = [];
    const codes = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === null || v === undefined) continue;
      const s = String(v);
      let c = index.get(s);
      if (c === undefined) { c = dict.length; dict.push(s); index.set(s, c); }
      codes[i] = c;
      valid[i] = 1;
    }
    return stringVector(codes, dict, valid);
  }
  if (kind === 'bool') {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === null || v === undefined) continue;
      b[i] = v ? 1 : 0;
      valid[i] = 1;
    }
    return boolVector(b, valid);
  }
  if (kind === 'int64') {
    const b = new BigInt64Array(n);
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === null || v === undefined) continue;
      b[i] = typeof v === 'bigint' ? v : BigInt(v as number);
      valid[i] = 1;
    }
    return int64Vector(b, valid);
  }
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    x[i] = v instanceof Date ? v.getTime() : Number(v);
    valid[i] = Number.isNaN(x[i]) && kind !== 'float' ? 0 : 1;
  }
  if (kind === 'timestamp') return timestampVector(x, valid);
  if (kind === 'int32') return int32Vector(Int32Array.from(x), valid);
  // A float NaN is pandas' missing value: keep it as null.
  for (let i = 0; i < n; i++) if (x[i] !== x[i]) valid[i] = 0;
  return floatVector(x, valid);
}

/** Rows of one row group (or the whole file when rowGroup is undefined), selected columns. */
export async function readParquet(part: { path: string; rowGroup?: number }, columns?: string[]): Promise<Table> {
  const metadata = metadataOf(part.path);
  const schema = parquetSchema(metadata);
  const leaves = schema.children.map((c) => c.element);
  const names = leaves.map((e) => e.name);
  for (const c of columns ?? []) {
    if (!names.includes(c)) throw new Error(`parquet: ${part.path} has no column '${c}' (columns: ${names.join(', ')})`);
  }
  let rowStart = 0;
  let rowEnd = Number(metadata.num_rows);
  if (part.rowGroup !== undefined) {
    const rgs = metadata.row_groups;
    if (!Number.isInteger(part.rowGroup) || part.rowGroup < 0 || part.rowGroup >= rgs.length) {
      throw new Error(`parquet: ${part.path} has ${rgs.length} row groups; row group ${part.rowGroup} does not exist`);
    }
    for (let i = 0; i < part.rowGroup; i++) rowStart += Number(rgs[i].num_rows);
    rowEnd = rowStart + Number(rgs[part.rowGroup].num_rows);
  }
  const wanted = columns ?? names.filter((n) => !n.startsWith('__index_level_'));
  // Only this row group's column chunks are read from the file, whatever its size.
  let opened: Awaited<ReturnType<typeof fileAsyncBuffer>>;
  try {
    opened = await fileAsyncBuffer(part.path);
  } catch (e) {
    throw new Error(`parquet: cannot read ${part.path}: ${(e as Error).message}`);
  }
  let rows: Record<string, unknown>[];
  try {
    rows = await parquetReadObjects({ file: opened.file, metadata, columns: wanted, rowStart, rowEnd, utf8: true });
  } finally {
    await opened.close();
  }
  const cols = wanted.map((name) => {
    const element = leaves[names.indexOf(name)];
    const values = rows.map((r) => r[name] as unknown);
    return { name, vector: toVector(values, kindOf(element)) };
  });
  return tableOf(cols, rows.length);
}

type WriteType = 'DOUBLE' | 'INT64' | 'INT32' | 'BOOLEAN' | 'STRING' | 'TIMESTAMP';

function columnSource(table: Table, name: string): { name: string; data: unknown[]; type: WriteType; nullable: boolean } {
  const v = table.getChild(name) as Vector;
  const t = valueTypeOf(v.type);
  if (!t) throw new Error(`parquet: column '${name}' has type ${String(v.type)}, which cannot be written`);
  const n = v.length;
  const data: unknown[] = new Array(n);
  if (t === 'string') {
    const s = strView(v, name);
    for (let i = 0; i < n; i++) data[i] = s.valid && !s.valid[i] ? null : s.dict[s.codes[i]];
    return { name, data, type: 'STRING', nullable: true };
  }
  if (t === 'bool') {
    const b = boolView(v, name);
    for (let i = 0; i < n; i++) data[i] = b.valid && !b.valid[i] ? null : b.values[i] === 1;
    return { name, data, type: 'BOOLEAN', nullable: true };
  }
  const exact = int64View(v);
  if (exact) {
    for (let i = 0; i < n; i++) data[i] = exact.valid && !exact.valid[i] ? null : exact.values[i];
    return { name, data, type: 'INT64', nullable: true };
  }
  const x = numView(v, name);
  const int32 = DataType.isInt(v.type) && v.type.bitWidth <= 32;
  for (let i = 0; i < n; i++) {
    const ok = !x.valid || x.valid[i];
    if (!ok) data[i] = null;
    else if (t === 'timestamp') data[i] = new Date(x.values[i]);
    else if (t === 'int') data[i] = int32 ? x.values[i] : BigInt(x.values[i]);
    else data[i] = x.values[i];
  }
  const type: WriteType = t === 'timestamp' ? 'TIMESTAMP' : t === 'int' ? (int32 ? 'INT32' : 'INT64') : 'DOUBLE';
  return { name, data, type, nullable: true };
}

/** A Parquet file's bytes holding `table`, in row groups of `rowGroupSize` rows. */
export function parquetBytes(table: Table, rowGroupSize = 1 << 20): Uint8Array {
  const columnData = table.schema.fields.map((f) => columnSource(table, f.name));
  return new Uint8Array(parquetWriteBuffer({ columnData: columnData as never, rowGroupSize }));
}

/**
 * Writes `table` to `path` as Parquet, through a fresh temporary file renamed onto it, so a link
 * planted at `path` (dangling or not) is replaced rather than written through (issue 29.3).
 */
export function writeParquet(table: Table, path: string, rowGroupSize?: number): void {
  writeFileNoFollow(path, parquetBytes(table, rowGroupSize));
}
