/**
 * Moving rows between Arrow tables without changing column types: take (gather rows by index,
 * with -1 giving a null row, as the outer side of a join needs) and concat (stack tables with the
 * same column names). Fixed-width, boolean, Utf8 and dictionary columns are copied buffer to
 * buffer; other types fall back to Arrow's own builders.
 */
import {
  DataType, Dictionary, Table, RecordBatch, Struct, makeData, makeVector, vectorFromArray, Schema, Field,
  type Data, type Vector,
} from 'apache-arrow';
import { bitAt, packValid } from './bitmap';
import { utf8Vector } from './build';
import { internCode } from './intern';

type Fixed = Float64Array | Float32Array | Int32Array | Int16Array | Int8Array | Uint8Array | Uint16Array | Uint32Array | BigInt64Array | BigUint64Array;
type FixedCtor = { new (n: number): Fixed };

function isFixed(d: Data): boolean {
  const t = d.type;
  return !DataType.isBool(t) && !d.valueOffsets && ArrayBuffer.isView(d.values) && d.children.length === 0 && !DataType.isUtf8View(t) && !DataType.isBinaryView(t);
}

function withNulls(d: Data, length: number, valid: Uint8Array | null): { nullBitmap?: Uint8Array; nullCount: number } {
  if (!valid) return { nullCount: 0 };
  const { bitmap, nullCount } = packValid(valid, length);
  return nullCount ? { nullBitmap: bitmap, nullCount } : { nullCount: 0 };
}

// One loop per array type: a loop that sees several typed-array types gets slow element access.
function gatherF64(src: Float64Array, dst: Float64Array, idx: Int32Array, stride: number): void {
  const n = idx.length;
  if (stride === 1) {
    for (let i = 0; i < n; i++) {
      const k = idx[i];
      if (k >= 0) dst[i] = src[k];
    }
  } else for (let i = 0; i < n; i++) if (idx[i] >= 0) for (let s = 0; s < stride; s++) dst[i * stride + s] = src[idx[i] * stride + s];
}
function gatherI32(src: Int32Array, dst: Int32Array, idx: Int32Array, stride: number): void {
  const n = idx.length;
  if (stride === 1) {
    for (let i = 0; i < n; i++) {
      const k = idx[i];
      if (k >= 0) dst[i] = src[k];
    }
  } else if (stride === 2) {
    for (let i = 0; i < n; i++) {
      const k = idx[i];
      if (k >= 0) {
        dst[2 * i] = src[2 * k];
        dst[2 * i + 1] = src[2 * k + 1];
      }
    }
  } else for (let i = 0; i < n; i++) if (idx[i] >= 0) for (let s = 0; s < stride; s++) dst[i * stride + s] = src[idx[i] * stride + s];
}
function gatherAny(src: Float32Array, dst: Float32Array, idx: Int32Array, stride: number): void {
  const n = idx.length;
  for (let i = 0; i < n; i++) if (idx[i] >= 0) for (let s = 0; s < stride; s++) dst[i * stride + s] = src[idx[i] * stride + s];
}

function hasNegative(idx: Int32Array): boolean {
  for (let i = 0; i < idx.length; i++) if (idx[i] < 0) return true;
  return false;
}

/** Rows `idx` of one chunk (idx -1 -> null). */
export function takeData(d: Data, idx: Int32Array): Data {
  const n = idx.length;
  const srcBm = d.nullCount > 0 ? d.nullBitmap : null;
  let valid: Uint8Array | null = null;
  if (srcBm || hasNegative(idx)) {
    valid = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const k = idx[i];
      valid[i] = k < 0 ? 0 : srcBm ? bitAt(srcBm, d.offset, k) : 1;
    }
  }
  const t = d.type;
  if (isFixed(d)) {
    let stride = d.stride;
    const vals = d.values as Fixed;
    const out = new (vals.constructor as FixedCtor)(n * stride);
    let src: Fixed = vals;
    let dst: Fixed = out;
    if (vals instanceof BigInt64Array || vals instanceof BigUint64Array) {
      // Copy 64-bit values as two int32 words: reading them as bigints would allocate per row.
      src = new Int32Array(vals.buffer, vals.byteOffset, vals.length * 2);
      dst = new Int32Array(out.buffer);
      stride *= 2;
    }
    if (src instanceof Float64Array) gatherF64(src, dst as Float64Array, idx, stride);
    else if (src instanceof Int32Array) gatherI32(src, dst as Int32Array, idx, stride);
    else gatherAny(src as Float32Array, dst as Float32Array, idx, stride);
    const dictionary = DataType.isDictionary(t) ? d.dictionary : undefined;
    return makeData({ type: t, length: n, data: out, dictionary, ...withNulls(d, n, valid) } as never);
  }
  if (DataType.isBool(t)) {
    const bits = d.values as Uint8Array;
    const out = new Uint8Array(((n + 63) & ~63) >> 3);
    for (let i = 0; i < n; i++) {
      const k = idx[i];
      if (k >= 0 && bitAt(bits, d.offset, k)) out[i >> 3] |= 1 << (i & 7);
    }
    return makeData({ type: t, length: n, data: out, ...withNulls(d, n, valid) });
  }
  if (DataType.isUtf8(t) || DataType.isBinary(t)) {
    const offs = d.valueOffsets as Int32Array;
    const bytes = d.values as Uint8Array;
    const outOffs = new Int32Array(n + 1);
    let total = 0;
    for (let i = 0; i < n; i++) {
      const k = idx[i];
      if (k >= 0) total += offs[k + 1] - offs[k];
      outOffs[i + 1] = total;
    }
    const out = new Uint8Array(total);
    for (let i = 0; i < n; i++) {
      const k = idx[i];
      if (k >= 0) out.set(bytes.subarray(offs[k], offs[k + 1]), outOffs[i]);
    }
    return makeData({ type: t, length: n, valueOffsets: outOffs, data: out, ...withNulls(d, n, valid) } as never);
  }
  // Anything else (lists, structs, ...): through Arrow's builders.
  const v = makeVector(d);
  const vals: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) vals[i] = idx[i] < 0 ? null : v.get(idx[i]);
  return vectorFromArray(vals, t).data[0];
}

function dictStrings(d: Data): string[] {
  return (d.dictionary as Vector).toArray() as string[];
}

/** One chunk holding the chunks `parts` one after another (all of one type). */
export function concatData(parts: Data[]): Data {
  if (parts.length === 1) return parts[0];
  const t = parts[0].type;
  const n = parts.reduce((a, d) => a + d.length, 0);
  let valid: Uint8Array | null = null;
  if (parts.some((d) => d.nullCount > 0)) {
    valid = new Uint8Array(n);
    let at = 0;
    for (const d of parts) {
      const bm = d.nullCount > 0 ? d.nullBitmap : null;
      for (let i = 0; i < d.length; i++) valid[at + i] = bm ? bitAt(bm, d.offset, i) : 1;
      at += d.length;
    }
  }
  if (DataType.isDictionary(t)) {
    // Chunks may hold different dictionaries (different partitions): re-code into one.
    const same = parts.every((d) => d.dictionary === parts[0].dictionary);
    const dict: string[] = same ? dictStrings(parts[0]) : [];
    const index = new Map<string, number>();
    const out = new Int32Array(n);
    let at = 0;
    for (const d of parts) {
      const src = d.values as ArrayLike<number>;
      if (same) {
        for (let i = 0; i < d.length; i++) out[at + i] = src[i];
      } else {
        const map = dictStrings(d).map((s) => internCode(dict, index, s));
        for (let i = 0; i < d.length; i++) out[at + i] = map[src[i]] ?? 0;
      }
      at += d.length;
    }
    const dictionary = same ? parts[0].dictionary : utf8Vector(dict);
    return makeData({ type: t, length: n, data: out, dictionary, ...withNulls(parts[0], n, valid) } as never);
  }
  if (parts.every(isFixed)) {
    const stride = parts[0].stride;
    const out = new ((parts[0].values as Fixed).constructor as FixedCtor)(n * stride);
    let at = 0;
    for (const d of parts) {
      (out as Float64Array).set((d.values as Float64Array).subarray(0, d.length * stride), at * stride);
      at += d.length;
    }
    return makeData({ type: t, length: n, data: out, ...withNulls(parts[0], n, valid) } as never);
  }
  if (DataType.isBool(t)) {
    const out = new Uint8Array(((n + 63) & ~63) >> 3);
    let at = 0;
    for (const d of parts) {
      const bits = d.values as Uint8Array;
      for (let i = 0; i < d.length; i++) if (bitAt(bits, d.offset, i)) out[(at + i) >> 3] |= 1 << ((at + i) & 7);
      at += d.length;
    }
    return makeData({ type: t, length: n, data: out, ...withNulls(parts[0], n, valid) });
  }
  if (DataType.isUtf8(t) || DataType.isBinary(t)) {
    let total = 0;
    for (const d of parts) {
      const o = d.valueOffsets as Int32Array;
      total += o[d.length] - o[0];
    }
    const bytes = new Uint8Array(total);
    const offs = new Int32Array(n + 1);
    let at = 0;
    let pos = 0;
    for (const d of parts) {
      const o = d.valueOffsets as Int32Array;
      const b = d.values as Uint8Array;
      bytes.set(b.subarray(o[0], o[d.length]), pos);
      for (let i = 0; i < d.length; i++) offs[at + i + 1] = pos + o[i + 1] - o[0];
      pos += o[d.length] - o[0];
      at += d.length;
    }
    return makeData({ type: t, length: n, valueOffsets: offs, data: bytes, ...withNulls(parts[0], n, valid) } as never);
  }
  if (DataType.isList(t)) {
    // Offsets shifted, children (the slices the offsets cover) concatenated.
    const offs = new Int32Array(n + 1);
    const children: Data[] = [];
    let at = 0;
    let pos = 0;
    for (const d of parts) {
      const o = d.valueOffsets as Int32Array;
      for (let i = 0; i < d.length; i++) offs[at + i + 1] = pos + o[i + 1] - o[0];
      children.push(d.children[0].slice(o[0], o[d.length] - o[0]));
      pos += o[d.length] - o[0];
      at += d.length;
    }
    return makeData({ type: t, length: n, valueOffsets: offs, child: concatData(children), ...withNulls(parts[0], n, valid) } as never);
  }
  const vals: unknown[] = [];
  for (const d of parts) vals.push(...makeVector(d).toArray());
  return vectorFromArray(vals, t).data[0];
}

/** One chunk of a whole column. */
export function single(v: Vector): Data {
  return v.data.length === 1 ? v.data[0] : concatData(v.data as Data[]);
}

/**
 * Each dictionary column of one table with its own dictionary id. Columns of tables decoded in
 * this process from different workers' IPC keep the ids those workers gave (each process counts
 * from 0), so the left key of a join and a string column of its right side can both say id 0 with
 * different dictionaries, which Arrow refuses in one schema ("two different dictionaries with the
 * same Id", issue 18 item 7). A repeated id gets a fresh Dictionary type (same value and index
 * types); the codes and the dictionary are kept.
 */
function distinctDictionaryIds(children: Data[]): Data[] {
  // Ids the columns hold: a fresh id must avoid them too, since this process's counter can hand
  // out an id that a decoded column already carries.
  const taken = new Set<number>();
  for (const d of children) if (DataType.isDictionary(d.type)) taken.add(d.type.id);
  const used = new Set<number>();
  return children.map((d) => {
    const t = d.type;
    if (!DataType.isDictionary(t)) return d;
    if (!used.has(t.id)) {
      used.add(t.id);
      return d;
    }
    let fresh = new Dictionary(t.dictionary, t.indices, null, t.isOrdered);
    while (taken.has(fresh.id) || used.has(fresh.id)) fresh = new Dictionary(t.dictionary, t.indices, null, t.isOrdered);
    used.add(fresh.id);
    return d.clone(fresh);
  });
}

/** A table from named vectors (all of one length), in the given order. */
export function tableOf(cols: { name: string; vector: Vector }[], length?: number): Table {
  const n = cols.length ? cols[0].vector.length : (length ?? 0);
  const children = distinctDictionaryIds(cols.map((c) => single(c.vector)));
  const fields = cols.map((c, i) => new Field(c.name, children[i].type, true));
  const struct = makeData({ type: new Struct(fields), length: n, nullCount: 0, children });
  return new Table([new RecordBatch(new Schema(fields), struct)]);
}

/** Rows `idx` of a table (idx -1 -> a row of nulls). */
export function takeTable(table: Table, idx: Int32Array): Table {
  return tableOf(table.schema.fields.map((f) => ({ name: f.name, vector: makeVector(takeData(single(table.getChild(f.name) as Vector), idx)) })));
}

/** Rows where mask[i] is 1. */
export function filterTable(table: Table, mask: Uint8Array): Table {
  let count = 0;
  for (let i = 0; i < mask.length; i++) count += mask[i];
  const idx = new Int32Array(count);
  let j = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i]) idx[j++] = i;
  return takeTable(table, idx);
}

/**
 * Tables stacked in order. Columns are matched by name; all tables must have the same column
 * names and types (the error names the first table and column that differ).
 */
export function concatTables(tables: Table[]): Table {
  if (tables.length === 0) throw new Error('concat: needs at least one table');
  const first = tables[0];
  const names = first.schema.fields.map((f) => f.name);
  tables.forEach((t, k) => {
    const other = t.schema.fields.map((f) => f.name);
    if (other.length !== names.length || other.some((n) => !names.includes(n))) {
      throw new Error(`concat: table ${k} has columns [${other.join(', ')}], but table 0 has [${names.join(', ')}]`);
    }
    for (const f of first.schema.fields) {
      const g = t.schema.fields.find((x) => x.name === f.name) as Field;
      if (g.type.typeId !== f.type.typeId || String(g.type) !== String(f.type)) {
        throw new Error(`concat: column '${f.name}' is ${String(g.type)} in table ${k} but ${String(f.type)} in table 0`);
      }
    }
  });
  return tableOf(first.schema.fields.map((f) => {
    const datas: Data[] = [];
    for (const t of tables) for (const d of (t.getChild(f.name) as Vector).data) if (d.length > 0) datas.push(d as Data);
    const data = datas.length === 0 ? single(first.getChild(f.name) as Vector) : concatData(datas);
    return { name: f.name, vector: makeVector(data) };
  }));
}
