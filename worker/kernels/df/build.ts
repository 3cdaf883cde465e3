/**
 * Builds Arrow vectors from the kernels' typed arrays. Strings come out dictionary-encoded
 * (Dictionary<Int32, Utf8>), which keeps groupby keys as integer codes across processes.
 */
import {
  Bool, Dictionary, Float64, Int32, Int64, TimestampMillisecond, Utf8,
  makeData, makeVector, type Vector,
} from 'apache-arrow';
import { packValid } from './bitmap';

function nulls(valid: Uint8Array | null, n: number): { nullBitmap?: Uint8Array; nullCount: number } {
  if (!valid) return { nullCount: 0 };
  const { bitmap, nullCount } = packValid(valid, n);
  return nullCount === 0 ? { nullCount: 0 } : { nullBitmap: bitmap, nullCount };
}

export function floatVector(values: Float64Array, valid: Uint8Array | null = null): Vector {
  const n = values.length;
  return makeVector(makeData({ type: new Float64(), length: n, data: values, ...nulls(valid, n) }));
}

/** Int64 column from integral float64 values. */
export function intVector(values: Float64Array, valid: Uint8Array | null = null): Vector {
  const n = values.length;
  const data = new BigInt64Array(n);
  for (let i = 0; i < n; i++) data[i] = BigInt(Number.isFinite(values[i]) ? Math.trunc(values[i]) : 0);
  return int64Vector(data, valid);
}

/** An int64 column of exact values. */
export function int64Vector(data: BigInt64Array, valid: Uint8Array | null = null): Vector {
  const n = data.length;
  return makeVector(makeData({ type: new Int64(), length: n, data, ...nulls(valid, n) }));
}

export function int32Vector(values: Int32Array, valid: Uint8Array | null = null): Vector {
  const n = values.length;
  return makeVector(makeData({ type: new Int32(), length: n, data: values, ...nulls(valid, n) }));
}

export function boolVector(values: Uint8Array, valid: Uint8Array | null = null): Vector {
  const n = values.length;
  const bits = packValid(values, n).bitmap;
  return makeVector(makeData({ type: new Bool(), length: n, data: bits, ...nulls(valid, n) }));
}

export function timestampVector(ms: Float64Array, valid: Uint8Array | null = null): Vector {
  const n = ms.length;
  const data = new BigInt64Array(n);
  for (let i = 0; i < n; i++) data[i] = BigInt(Number.isFinite(ms[i]) ? Math.round(ms[i]) : 0);
  return makeVector(makeData({ type: new TimestampMillisecond(), length: n, data, ...nulls(valid, n) }));
}

const encoder = new TextEncoder();

/** Plain Utf8 vector of strings (null entries are nulls). */
export function utf8Vector(strings: readonly (string | null)[]): Vector {
  const n = strings.length;
  const encoded = strings.map((s) => (s === null ? null : encoder.encode(s)));
  const offsets = new Int32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += encoded[i]?.length ?? 0;
    offsets[i + 1] = total;
  }
  const bytes = new Uint8Array(total);
  const valid = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const e = encoded[i];
    if (e) bytes.set(e, offsets[i]);
    valid[i] = e ? 1 : 0;
  }
  return makeVector(makeData({ type: new Utf8(), length: n, valueOffsets: offsets, data: bytes, ...nulls(valid, n) }));
}

/** Dictionary<Int32, Utf8> vector: `codes` index `dict`. */
export function stringVector(codes: Int32Array, dict: readonly string[], valid: Uint8Array | null = null): Vector {
  const n = codes.length;
  const dictionary = utf8Vector(dict);
  return makeVector(makeData({ type: new Dictionary(new Utf8(), new Int32()), length: n, data: codes, dictionary, ...nulls(valid, n) }));
}
