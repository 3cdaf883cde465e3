/**
 * Task outputs from the Dask bridge (wire Values, common/dask-messages.ts) into the ChunkValues
 * the local workers produce, so that node results and digests are assembled by the same code as
 * local runs (main/engine/outputs.ts). Tables become Arrow IPC built with the df kernels' own
 * vector builders (strings dictionary-encoded, as the local kernels make them).
 */
import { Table, type Vector } from 'apache-arrow';
import type { ChunkValue, NDArray, NumericArray } from '../../common/arrays';
import type { WireArray, WireColumn, WireValue } from '../../common/dask-messages';
import { boolVector, floatVector, int32Vector, timestampVector, utf8Vector } from '../../worker/kernels/df/build';
import { tableOf } from '../../worker/kernels/df/gather';
import { toIPC } from '../../worker/kernels/df/ipc';
import { Dictionary, Float32, Int32, Int64, makeData, makeVector, Utf8 } from 'apache-arrow';
import { packValid } from '../../worker/kernels/df/bitmap';

function bytesOf(b64: string): Uint8Array {
  const buf = Buffer.from(b64, 'base64');
  // A copy on an 8-aligned ArrayBuffer, so typed views of any element size are valid.
  const out = new Uint8Array(new ArrayBuffer(buf.byteLength));
  out.set(buf);
  return out;
}

function typed(dtype: WireArray['dtype'], bytes: Uint8Array, where: string): NumericArray {
  const size = dtype === 'bool' ? 1 : dtype === 'float32' || dtype === 'int32' ? 4 : 8;
  if (bytes.byteLength % size !== 0) throw new Error(`${where}: ${bytes.byteLength} bytes is not a whole number of ${dtype} elements`);
  const n = bytes.byteLength / size;
  switch (dtype) {
    case 'float64': return new Float64Array(bytes.buffer, 0, n);
    case 'float32': return new Float32Array(bytes.buffer, 0, n);
    case 'int32': return new Int32Array(bytes.buffer, 0, n);
    case 'int64': return new BigInt64Array(bytes.buffer, 0, n);
    case 'bool': return new Uint8Array(bytes.buffer, 0, n);
  }
}

export function wireArray(a: WireArray, where: string): NDArray {
  const data = typed(a.dtype, bytesOf(a.data), where);
  const n = a.shape.reduce((x, y) => x * y, 1);
  if (data.length !== n) throw new Error(`${where}: shape ${a.shape.join('x')} needs ${n} elements, data has ${data.length}`);
  return { dtype: a.dtype, shape: a.shape, data } as NDArray;
}

function validOf(c: WireColumn, rows: number, where: string): Uint8Array | null {
  if (c.valid === undefined) return null;
  const v = bytesOf(c.valid);
  if (v.length !== rows) throw new Error(`${where}: column '${c.name}' validity has ${v.length} entries, the table ${rows} rows`);
  return v;
}

/**
 * `dictId`: the Arrow dictionary id of a string column. Ids are written into the IPC bytes the
 * digest covers; the local engine's tables carry 0, 1, ... in column order (read back from IPC
 * in a worker), so these do too, rather than apache-arrow's process-wide counter.
 */
function column(c: WireColumn, rows: number, where: string, dictId: number): Vector {
  const at = `${where}: column '${c.name}'`;
  const valid = validOf(c, rows, where);
  if (c.type === 'utf8') {
    if (!c.values || c.values.length !== rows) throw new Error(`${at} needs ${rows} string values`);
    const dict: string[] = [];
    const index = new Map<string, number>();
    const codes = new Int32Array(rows);
    const present = new Uint8Array(rows);
    c.values.forEach((s, i) => {
      if (s === null || (valid && !valid[i])) return;
      present[i] = 1;
      let k = index.get(s);
      if (k === undefined) index.set(s, (k = dict.push(s) - 1));
      codes[i] = k;
    });
    const nulls = c.values.some((s) => s === null) || valid ? packValid(present, rows) : null;
    const type = new Dictionary(new Utf8(), new Int32(), dictId);
    return makeVector(makeData({ type, length: rows, data: codes, dictionary: utf8Vector(dict), ...(nulls && nulls.nullCount ? { nullBitmap: nulls.bitmap, nullCount: nulls.nullCount } : { nullCount: 0 }) }));
  }
  if (c.data === undefined) throw new Error(`${at} has no data`);
  const bytes = bytesOf(c.data);
  const check = (n: number) => {
    if (n !== rows) throw new Error(`${at} has ${n} values, the table ${rows} rows`);
  };
  switch (c.type) {
    case 'float64': {
      const x = typed('float64', bytes, at) as Float64Array;
      check(x.length);
      return floatVector(x, valid);
    }
    case 'float32': {
      const x = typed('float32', bytes, at) as Float32Array;
      check(x.length);
      const nulls = valid ? packValid(valid, rows) : null;
      return makeVector(makeData({ type: new Float32(), length: rows, data: x, ...(nulls && nulls.nullCount ? { nullBitmap: nulls.bitmap, nullCount: nulls.nullCount } : { nullCount: 0 }) }));
    }
    case 'int32': {
      const x = typed('int32', bytes, at) as Int32Array;
      check(x.length);
      return int32Vector(x, valid);
    }
    case 'int64': {
      const x = typed('int64', bytes, at) as BigInt64Array;
      check(x.length);
      const nulls = valid ? packValid(valid, rows) : null;
      return makeVector(makeData({ type: new Int64(), length: rows, data: x, ...(nulls && nulls.nullCount ? { nullBitmap: nulls.bitmap, nullCount: nulls.nullCount } : { nullCount: 0 }) }));
    }
    case 'bool':
      check(bytes.length);
      return boolVector(bytes, valid);
    case 'timestamp[ms]': {
      const x = typed('int64', bytes, at) as BigInt64Array;
      check(x.length);
      return timestampVector(Float64Array.from(x, Number), valid);
    }
  }
}

/** One wire Value as a ChunkValue; `where` names the task in errors. */
export function chunkValueOf(v: WireValue, where: string): ChunkValue {
  switch (v.kind) {
    case 'array':
      return { kind: 'array', array: wireArray(v, where) };
    case 'arrays':
      return { kind: 'arrays', arrays: Object.fromEntries(Object.entries(v.arrays).map(([k, a]) => [k, wireArray(a, `${where}.${k}`)])) };
    case 'partial': {
      const fields: Record<string, Float64Array> = {};
      for (const [k, b] of Object.entries(v.fields)) fields[k] = typed('float64', bytesOf(b), `${where}.${k}`) as Float64Array;
      return { kind: 'partial', partial: { op: v.op, shape: v.shape, fields } };
    }
    case 'json':
      return { kind: 'json', value: v.value };
    case 'table': {
      let dictId = 0;
      const cols = v.columns.map((c) => ({ name: c.name, vector: column(c, v.rows, where, c.type === 'utf8' ? dictId++ : -1) }));
      // tableOf, as the local kernels build tables: arrow's Table of zero-length vectors (a
      // partition a filter emptied) has column data without children, which toIPC cannot walk.
      const table = v.columns.length ? tableOf(cols, v.rows) : new Table();
      return { kind: 'table', ipc: toIPC(table), rows: v.rows };
    }
  }
}
