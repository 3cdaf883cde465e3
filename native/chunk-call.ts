/**
 * What the native-cpu and cuda backends share: turning a ChunkProgram and its inputs into the
 * addon's arguments, and the addon's output back into a ChunkValue.
 */
import type { ChunkProgram, ChunkValue, NDArray, Partial } from '../common/arrays';
import { castComputed, sizeOf } from '../common/arrays';
import type { ArrayBackend } from '../common/backend';
import type { FloatArray } from './index';
import { PARTIAL_FIELDS, encodeProgram, outputLength, partialShape } from './program-code';

export interface NativeCall {
  code: Float64Array;
  inputs: (FloatArray | Int32Array)[];
  out: FloatArray;
}

/** An input as the addon takes it: int64 and bool converted to float64, a non-array as an empty array. */
export function addonInput(v: ChunkValue): FloatArray | Int32Array {
  if (v.kind !== 'array') return new Float64Array(0);
  const d = v.array.data;
  if (d instanceof BigInt64Array) return Float64Array.from(d, Number);
  return d instanceof Uint8Array ? Float64Array.from(d) : d;
}

/** Encodes the program and allocates its output. Int64 and bool inputs are converted to float64; a bool or integer program computes in float64. */
export function prepareCall(program: ChunkProgram, inputs: ChunkValue[]): NativeCall {
  const arrays = inputs.map(addonInput);
  const shapes = inputs.map((v) => (v.kind === 'array' ? v.array.shape : null));
  const code = encodeProgram(program, shapes);
  const n = outputLength(program);
  const out = !program.reduce && program.dtype === 'float32' ? new Float32Array(n) : new Float64Array(n);
  return { code, inputs: arrays, out };
}

/** The ChunkValue of a finished call. */
export function resultOf(program: ChunkProgram, out: FloatArray): ChunkValue {
  if (!program.reduce) {
    // Bool and integer programs compute in float64 and are cast here, as the js interpreter casts.
    const array: NDArray = { dtype: program.dtype, shape: program.shape, data: castComputed(program.dtype, out) };
    return { kind: 'array', array };
  }
  const shape = partialShape(program);
  const size = sizeOf(shape);
  const fields: Record<string, Float64Array> = {};
  PARTIAL_FIELDS[program.reduce.op].forEach((f, i) => {
    fields[f] = Float64Array.from(out.subarray(i * size, (i + 1) * size));
  });
  const partial: Partial = { op: program.reduce.op, shape, fields };
  return { kind: 'partial', partial };
}

/** Checks a 2-D float matrix for the linear-algebra calls; returns [rows, cols]. */
export function matrixDims(a: NDArray, name: string): [number, number] {
  if (a.shape.length !== 2) throw new TypeError(`${name}: expected a 2-D array, got shape [${a.shape.join(', ')}]`);
  if (a.dtype !== 'float64' && a.dtype !== 'float32') throw new TypeError(`${name}: expected float64 or float32, got ${a.dtype}`);
  return [a.shape[0], a.shape[1]];
}

export function allocLike(dtype: 'float64' | 'float32', n: number): FloatArray {
  return dtype === 'float32' ? new Float32Array(n) : new Float64Array(n);
}

export function asFloat(a: NDArray): FloatArray {
  if (a.data instanceof Float64Array || a.data instanceof Float32Array) return a.data;
  throw new TypeError(`expected float data, got ${a.dtype}`);
}

/** The addon's three linear-algebra entry points, as one backend (CPU or CUDA) binds them. */
export interface LinalgCalls {
  matmul(a: FloatArray, b: FloatArray, c0: FloatArray | null, m: number, k: number, n: number, out: FloatArray): Promise<void>;
  qr(a: FloatArray, m: number, n: number, q: FloatArray, r: FloatArray): Promise<void>;
  svd(a: FloatArray, m: number, n: number, u: FloatArray, s: FloatArray, vt: FloatArray): Promise<void>;
}

/**
 * The ArrayBackend linear-algebra methods over either set of entry points: argument checks,
 * output allocation and result shapes are the same for the CPU and CUDA kernels.
 */
export function linalgMethods(calls: LinalgCalls): Required<Pick<ArrayBackend, 'matmul' | 'qr' | 'svd'>> {
  return {
    async matmul(a: NDArray, b: NDArray, c0?: NDArray): Promise<NDArray> {
      const [m, k] = matrixDims(a, 'matmul a');
      const [k2, n] = matrixDims(b, 'matmul b');
      if (k2 !== k || b.dtype !== a.dtype) throw new TypeError(`matmul: cannot multiply ${a.dtype}[${m}, ${k}] by ${b.dtype}[${k2}, ${n}]`);
      const dtype = a.dtype as 'float64' | 'float32';
      const out = allocLike(dtype, m * n);
      await calls.matmul(asFloat(a), asFloat(b), c0 ? asFloat(c0) : null, m, k, n, out);
      return { dtype, shape: [m, n], data: out };
    },
    async qr(a: NDArray) {
      const [m, n] = matrixDims(a, 'qr a');
      const dtype = a.dtype as 'float64' | 'float32';
      const q = allocLike(dtype, m * n);
      const r = allocLike(dtype, n * n);
      await calls.qr(asFloat(a), m, n, q, r);
      return { q: { dtype, shape: [m, n], data: q }, r: { dtype, shape: [n, n], data: r } };
    },
    async svd(a: NDArray) {
      const [m, n] = matrixDims(a, 'svd a');
      const dtype = a.dtype as 'float64' | 'float32';
      const p = Math.min(m, n);
      const u = allocLike(dtype, m * p);
      const s = allocLike(dtype, p);
      const vt = allocLike(dtype, p * n);
      await calls.svd(asFloat(a), m, n, u, s, vt);
      return { u: { dtype, shape: [m, p], data: u }, s: { dtype, shape: [p], data: s }, vt: { dtype, shape: [p, n], data: vt } };
    },
  };
}
