/**
 * Binary framing of chunk values for worker-to-worker transfers (worker/peer.ts): a JSON header
 * describing the value and its buffers, followed by the raw bytes. No JSON rows of numbers, no
 * copies beyond the socket's.
 */
import type { ChunkValue, DType, JsonValue, NDArray, NumericArray, ReduceOp } from './arrays';

export interface EncodedValue {
  header: ValueHeader;
  buffers: Uint8Array[];
}

export type ValueHeader =
  | { kind: 'array'; dtype: DType; shape: number[] }
  /** `isum`: the exact integer sum (Partial.isum) follows the fields' buffers. */
  | { kind: 'partial'; op: ReduceOp; shape: number[]; fields: string[]; isum?: boolean }
  | { kind: 'table'; rows: number }
  | { kind: 'json'; value: JsonValue }
  | { kind: 'arrays'; parts: Array<{ name: string; dtype: DType; shape: number[] }> };

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

export function encodeValue(v: ChunkValue): EncodedValue {
  switch (v.kind) {
    case 'array':
      return { header: { kind: 'array', dtype: v.array.dtype, shape: v.array.shape }, buffers: [bytesOf(v.array.data)] };
    case 'partial': {
      const names = Object.keys(v.partial.fields);
      return {
        header: { kind: 'partial', op: v.partial.op, shape: v.partial.shape, fields: names, ...(v.partial.isum ? { isum: true } : {}) },
        buffers: [...names.map((n) => bytesOf(v.partial.fields[n])), ...(v.partial.isum ? [bytesOf(v.partial.isum)] : [])],
      };
    }
    case 'table':
      return { header: { kind: 'table', rows: v.rows }, buffers: [v.ipc] };
    case 'json':
      return { header: { kind: 'json', value: v.value }, buffers: [] };
    case 'arrays': {
      const names = Object.keys(v.arrays);
      return {
        header: { kind: 'arrays', parts: names.map((name) => ({ name, dtype: v.arrays[name].dtype, shape: v.arrays[name].shape })) },
        buffers: names.map((n) => bytesOf(v.arrays[n].data)),
      };
    }
  }
}

/** Copies into an aligned buffer: typed arrays need their offset aligned to the element size. */
function aligned(b: Uint8Array): ArrayBuffer {
  const out = new ArrayBuffer(b.byteLength);
  new Uint8Array(out).set(b);
  return out;
}

function typed(dtype: DType, b: Uint8Array): NumericArray {
  const buf = aligned(b);
  switch (dtype) {
    case 'float64': return new Float64Array(buf);
    case 'float32': return new Float32Array(buf);
    case 'int32': return new Int32Array(buf);
    case 'int64': return new BigInt64Array(buf);
  }
}

export function decodeValue(header: ValueHeader, buffers: Uint8Array[]): ChunkValue {
  switch (header.kind) {
    case 'array':
      return { kind: 'array', array: { dtype: header.dtype, shape: header.shape, data: typed(header.dtype, buffers[0]) } };
    case 'partial': {
      const fields: Record<string, Float64Array> = {};
      header.fields.forEach((n, i) => {
        fields[n] = new Float64Array(aligned(buffers[i]));
      });
      const isum = header.isum ? new BigInt64Array(aligned(buffers[header.fields.length])) : undefined;
      return { kind: 'partial', partial: { op: header.op, shape: header.shape, fields, ...(isum ? { isum } : {}) } };
    }
    case 'table':
      return { kind: 'table', ipc: new Uint8Array(aligned(buffers[0])), rows: header.rows };
    case 'json':
      return { kind: 'json', value: header.value };
    case 'arrays': {
      const arrays: Record<string, NDArray> = {};
      header.parts.forEach((p, i) => {
        arrays[p.name] = { dtype: p.dtype, shape: p.shape, data: typed(p.dtype, buffers[i]) };
      });
      return { kind: 'arrays', arrays };
    }
  }
}
