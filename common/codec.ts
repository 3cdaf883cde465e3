/**
 * Binary framing of chunk values for worker-to-worker transfers (worker/peer.ts): a JSON header
 * describing the value and its buffers, followed by the raw bytes. No JSON rows of numbers, no
 * copies beyond the socket's.
 *
 * A JSON value travels in the body, never in the header: the header stays small whatever the
 * value (the peer's MAX_HEADER is a safety bound), and a tuning trial's output holds its weights
 * and optimizer state as one base64 string of megabytes (worker/kernels/tfjs/pack.ts). Long
 * strings are lifted out of the JSON text into buffers of their own; one that is canonical base64
 * goes as its raw bytes (the weights' float32 bytes, a quarter smaller) and is re-encoded on
 * arrival, which gives back the identical string.
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
  /**
   * buffers[0]: the value's JSON text (UTF-8) with each lifted string replaced by ""; then one
   * buffer per entry of `blobs`: the string at `path` (object keys and array indices), as raw
   * bytes when `base64`, as UTF-8 otherwise.
   */
  | { kind: 'json'; blobs: Array<{ path: Array<string | number>; base64: boolean }> }
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
      return encodeJson(v.value);
    case 'arrays': {
      const names = Object.keys(v.arrays);
      return {
        header: { kind: 'arrays', parts: names.map((name) => ({ name, dtype: v.arrays[name].dtype, shape: v.arrays[name].shape })) },
        buffers: names.map((n) => bytesOf(v.arrays[n].data)),
      };
    }
  }
}

/** Strings from this length on leave the JSON text for a buffer of their own. */
export const BLOB_MIN_CHARS = 4096;

type Path = Array<string | number>;

/** Whether `s` is base64 that decodes and re-encodes to itself (so its bytes can travel raw). */
function canonicalBase64(s: string, bytes: Buffer): boolean {
  return s.length % 4 === 0 && bytes.toString('base64') === s;
}

function encodeJson(value: JsonValue): EncodedValue {
  const blobs: Array<{ path: Path; base64: boolean }> = [];
  const buffers: Uint8Array[] = [];
  const lift = (v: JsonValue, path: Path): JsonValue => {
    if (typeof v === 'string') {
      if (v.length < BLOB_MIN_CHARS) return v;
      const raw = Buffer.from(v, 'base64');
      const base64 = canonicalBase64(v, raw);
      blobs.push({ path, base64 });
      buffers.push(base64 ? raw : Buffer.from(v, 'utf8'));
      return '';
    }
    if (Array.isArray(v)) return v.map((x, i) => lift(x, [...path, i]));
    if (v !== null && typeof v === 'object') {
      const o: { [k: string]: JsonValue } = {};
      for (const [k, x] of Object.entries(v)) o[k] = lift(x, [...path, k]);
      return o;
    }
    return v;
  };
  const text = Buffer.from(JSON.stringify(lift(value, [])), 'utf8');
  return { header: { kind: 'json', blobs }, buffers: [text, ...buffers] };
}

/** `root` with the string at `path` set to `s` (in place below the root); a bad path is an error. */
function setAt(root: JsonValue, path: Path, s: string): JsonValue {
  if (path.length === 0) return s;
  let parent: JsonValue = root;
  path.forEach((k, depth) => {
    const last = depth === path.length - 1;
    if (Array.isArray(parent) && typeof k === 'number' && k >= 0 && k < parent.length) {
      if (last) parent[k] = s;
      else parent = parent[k];
    } else if (parent !== null && typeof parent === 'object' && !Array.isArray(parent) && typeof k === 'string' && Object.hasOwn(parent, k)) {
      if (last) parent[k] = s;
      else parent = parent[k];
    } else throw new Error(`JSON value framing: blob path ${JSON.stringify(path)} does not lead to a place in the value`);
  });
  return root;
}

function decodeJson(blobs: Array<{ path: Path; base64: boolean }>, buffers: Uint8Array[]): JsonValue {
  let value = JSON.parse(Buffer.from(buffers[0].buffer, buffers[0].byteOffset, buffers[0].byteLength).toString('utf8')) as JsonValue;
  blobs.forEach((b, i) => {
    const bytes = Buffer.from(buffers[i + 1].buffer, buffers[i + 1].byteOffset, buffers[i + 1].byteLength);
    value = setAt(value, b.path, b.base64 ? bytes.toString('base64') : bytes.toString('utf8'));
  });
  return value;
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
    case 'bool': return new Uint8Array(buf);
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
      return { kind: 'json', value: decodeJson(header.blobs, buffers) };
    case 'arrays': {
      const arrays: Record<string, NDArray> = {};
      header.parts.forEach((p, i) => {
        arrays[p.name] = { dtype: p.dtype, shape: p.shape, data: typed(p.dtype, buffers[i]) };
      });
      return { kind: 'arrays', arrays };
    }
  }
}
