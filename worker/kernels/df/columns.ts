/**
 * Read-only views of Arrow columns in the shapes the kernels loop over: numbers as a
 * Float64Array, strings as dictionary codes (Int32Array) into unique strings, booleans as bytes;
 * each with byte-per-row validity. Float64 columns and dictionary-encoded strings in one chunk
 * are viewed without copying, which is the common case (the timeseries, IPC from other workers).
 *
 * Ints are viewed as float64 (exact up to 2^53); timestamps and dates as ms since the epoch.
 * int64View gives an Int64 column's exact values, for the steps that must not round them (keys,
 * Parquet writes).
 */
import { DataType, TimeUnit, DateUnit, type Data, type Table, type Vector } from 'apache-arrow';
import type { ValueType } from '../../../common/expr/ast';
import type { ExprSchema } from '../../../common/expr/check';
import { validBytes } from './bitmap';
import { internCode } from './intern';

export interface NumView {
  values: Float64Array;
  valid: Uint8Array | null;
}
export interface Int64View {
  values: BigInt64Array;
  valid: Uint8Array | null;
}
export interface StrView {
  /** Index into `dict` per row (meaningless where the row is null). */
  codes: Int32Array;
  /** Distinct strings. */
  dict: string[];
  valid: Uint8Array | null;
}
export interface BoolView {
  values: Uint8Array;
  valid: Uint8Array | null;
}

/** The expression-language type of an Arrow type, or null where the kernels do not support it. */
export function valueTypeOf(t: DataType): ValueType | null {
  if (DataType.isFloat(t)) return 'float';
  if (DataType.isInt(t)) return 'int';
  if (DataType.isBool(t)) return 'bool';
  if (DataType.isUtf8(t) || DataType.isLargeUtf8(t)) return 'string';
  if (DataType.isDictionary(t)) return DataType.isUtf8(t.dictionary) || DataType.isLargeUtf8(t.dictionary) ? 'string' : null;
  if (DataType.isTimestamp(t) || DataType.isDate(t)) return 'timestamp';
  return null;
}

/** The schema the expression checker sees: the supported columns of a table, in order. */
export function exprSchemaOf(table: Table): ExprSchema {
  const s: ExprSchema = {};
  for (const f of table.schema.fields) {
    const t = valueTypeOf(f.type);
    if (t) s[f.name] = t;
  }
  return s;
}

/** The column `name`, or an error listing the columns the table has. */
export function column(table: Table, name: string, where: string): Vector {
  const v = table.getChild(name);
  if (!v) throw new Error(`${where}: unknown column '${name}'; available columns: ${table.schema.fields.map((f) => f.name).join(', ')}`);
  return v;
}

function concatValid(parts: { n: number; valid: Uint8Array | null }[], total: number): Uint8Array | null {
  if (parts.every((p) => p.valid === null)) return null;
  const out = new Uint8Array(total).fill(1);
  let at = 0;
  for (const p of parts) {
    if (p.valid) out.set(p.valid, at);
    at += p.n;
  }
  return out;
}

function numChunk(d: Data, name: string): Float64Array {
  const t = d.type;
  const n = d.length;
  if (DataType.isFloat(t) || (DataType.isInt(t) && t.bitWidth <= 32)) {
    const src = d.values as ArrayLike<number>;
    if (src instanceof Float64Array) return src.length === n ? src : src.subarray(0, n);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = src[i];
    return out;
  }
  if (DataType.isInt(t) || DataType.isTimestamp(t) || DataType.isDate(t)) {
    // 64-bit values: bigint arrays (Int64, Timestamp, DateMillisecond) or int32 (DateDay).
    let scale = 1;
    if (DataType.isTimestamp(t)) scale = [1000, 1, 1e-3, 1e-6][t.unit as TimeUnit];
    if (DataType.isDate(t) && t.unit === DateUnit.DAY) scale = 86400000;
    const src = d.values as BigInt64Array | BigUint64Array | Int32Array;
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = Number(src[i]) * scale;
    return out;
  }
  throw new Error(`column '${name}' is ${String(t)}, not a number or timestamp`);
}

/** Numbers (ints, floats, timestamps as ms) of a column. */
export function numView(v: Vector, name: string): NumView {
  const chunks = v.data;
  if (chunks.length === 1) return { values: numChunk(chunks[0], name), valid: validBytes(chunks[0]) };
  const values = new Float64Array(v.length);
  const parts: { n: number; valid: Uint8Array | null }[] = [];
  let at = 0;
  for (const d of chunks) {
    values.set(numChunk(d, name), at);
    parts.push({ n: d.length, valid: validBytes(d) });
    at += d.length;
  }
  return { values, valid: concatValid(parts, v.length) };
}

/** The exact values of a signed 64-bit integer column, or null for any other type. */
export function int64View(v: Vector): Int64View | null {
  if (!DataType.isInt(v.type) || v.type.bitWidth !== 64 || !v.type.isSigned) return null;
  const chunk = (d: Data) => (d.values as BigInt64Array).subarray(0, d.length);
  if (v.data.length === 1) return { values: chunk(v.data[0]), valid: validBytes(v.data[0]) };
  const values = new BigInt64Array(v.length);
  let at = 0;
  for (const d of v.data) {
    values.set(chunk(d), at);
    at += d.length;
  }
  return { values, valid: concatValid(v.data.map((d) => ({ n: d.length, valid: validBytes(d) })), v.length) };
}

/**
 * The exact values of any integer column as bigints: Int64 as stored, narrower ints (exact in
 * float64) widened. The rows that must not round (int64 sums, products, extremes) read this.
 */
export function exactIntView(v: Vector, name: string): Int64View {
  const wide = int64View(v);
  if (wide) return wide;
  if (!DataType.isInt(v.type)) throw new Error(`column '${name}' is ${String(v.type)}, not an integer`);
  const n = numView(v, name);
  return { values: BigInt64Array.from(n.values, (x) => BigInt(x)), valid: n.valid };
}

/**
 * Whether float64 arithmetic on these integers is exact: while every partial sum of |x| stays below
 * 2^53 each addition is exact, so a computed total below 2^53 proves every sum, min and max of
 * these rows (in any order) equals the int64 one.
 */
export function floatSumsExact(x: Float64Array, valid: Uint8Array | null): boolean {
  let total = 0;
  for (let i = 0; i < x.length; i++) if (!valid || valid[i]) total += Math.abs(x[i]);
  return total < 2 ** 53;
}

const decoder = new TextDecoder();

/** Strings of a Utf8 chunk as codes into `dict`, interning through `index`. */
function internUtf8(d: Data, index: Map<string, number>, dict: string[], codes: Int32Array, at: number): void {
  const offs = d.valueOffsets as Int32Array;
  const bytes = d.values as Uint8Array;
  const valid = validBytes(d);
  for (let i = 0; i < d.length; i++) {
    if (valid && !valid[i]) continue;
    codes[at + i] = internCode(dict, index, decoder.decode(bytes.subarray(offs[i], offs[i + 1])));
  }
}

/** Strings of a column as dictionary codes into distinct strings. */
export function strView(v: Vector, name: string): StrView {
  const t = v.type;
  if (valueTypeOf(t) !== 'string') throw new Error(`column '${name}' is ${String(t)}, not a string`);
  const chunks = v.data;
  if (DataType.isDictionary(t)) {
    // Fast path: one chunk whose dictionary has no repeats -> its indices are our codes.
    if (chunks.length === 1) {
      const d = chunks[0];
      const dict = (d.dictionary as Vector).toArray() as string[];
      if (new Set(dict).size === dict.length) {
        const idx = d.values as Int32Array | Int8Array | Int16Array | Uint8Array | Uint16Array;
        const codes = idx instanceof Int32Array ? idx.subarray(0, d.length) : Int32Array.from(idx.subarray(0, d.length));
        return { codes, dict: Array.from(dict), valid: validBytes(d) };
      }
    }
    const index = new Map<string, number>();
    const dict: string[] = [];
    const codes = new Int32Array(v.length);
    const parts: { n: number; valid: Uint8Array | null }[] = [];
    let at = 0;
    for (const d of chunks) {
      const local = ((d.dictionary as Vector).toArray() as string[]).map((s) => internCode(dict, index, s));
      const idx = d.values as ArrayLike<number>;
      for (let i = 0; i < d.length; i++) codes[at + i] = local[Number(idx[i])] ?? 0;
      parts.push({ n: d.length, valid: validBytes(d) });
      at += d.length;
    }
    return { codes, dict, valid: concatValid(parts, v.length) };
  }
  const index = new Map<string, number>();
  const dict: string[] = [];
  const codes = new Int32Array(v.length);
  const parts: { n: number; valid: Uint8Array | null }[] = [];
  let at = 0;
  for (const d of chunks) {
    if (DataType.isUtf8(d.type)) internUtf8(d, index, dict, codes, at);
    else {
      // LargeUtf8: rare here, read through the vector's accessor.
      const vec = v.slice(at, at + d.length);
      for (let i = 0; i < d.length; i++) {
        const s = vec.get(i) as string | null;
        if (s === null) continue;
        codes[at + i] = internCode(dict, index, s);
      }
    }
    parts.push({ n: d.length, valid: validBytes(d) });
    at += d.length;
  }
  return { codes, dict, valid: concatValid(parts, v.length) };
}

/** Booleans of a column as bytes. */
export function boolView(v: Vector, name: string): BoolView {
  if (!DataType.isBool(v.type)) throw new Error(`column '${name}' is ${String(v.type)}, not a bool`);
  const values = new Uint8Array(v.length);
  const parts: { n: number; valid: Uint8Array | null }[] = [];
  let at = 0;
  for (const d of v.data) {
    const bits = d.values as Uint8Array;
    for (let i = 0; i < d.length; i++) {
      const j = d.offset + i;
      values[at + i] = (bits[j >> 3] >> (j & 7)) & 1;
    }
    parts.push({ n: d.length, valid: validBytes(d) });
    at += d.length;
  }
  return { values, valid: concatValid(parts, v.length) };
}
