/**
 * Array values and the per-chunk program every backend runs.
 *
 * A chunk task is a `ChunkProgram`: an elementwise expression over leaves (a generator over a
 * strided region of a virtual array, a constant, or a region of an input chunk), optionally
 * followed by the chunk step of a reduction. The compiler builds one program per output chunk by
 * fusing elementwise chains, pushing slices into the leaves and folding in the reduction's chunk
 * step, so `normal -> +1 -> [::2, ::2] -> sum` is one program that never materialises a chunk.
 * Backends (js, native-cpu, cuda) all interpret this one structure.
 */

/** `bool` is NumPy's bool: one byte a value, 0 or 1 (a Uint8Array). */
export type DType = 'float64' | 'float32' | 'int32' | 'int64' | 'bool';

export type TypedArrayOf<D extends DType> = D extends 'float64'
  ? Float64Array
  : D extends 'float32'
    ? Float32Array
    : D extends 'int32'
      ? Int32Array
      : D extends 'int64'
        ? BigInt64Array
        : Uint8Array;

export type NumericArray = Float64Array | Float32Array | Int32Array | BigInt64Array | Uint8Array;

/** A dense row-major (C order) array held by a worker. */
export interface NDArray {
  dtype: DType;
  shape: number[];
  data: NumericArray;
}

/**
 * A strided box in some array's global index space: on axis `d`, indices
 * `start[d] + k * step[d]` for `k` in `[0, count[d])`. Steps are non-zero; a negative step
 * (a NumPy slice such as `::-1`) walks the axis backwards from `start`.
 */
export interface Region {
  start: number[];
  step: number[];
  count: number[];
}

export type Leaf =
  /** Philox-generated values of the whole virtual array `shape`, read over `region` (docs/random.md). */
  | { kind: 'random'; dist: 'normal' | 'uniform'; seed: number; a: number; b: number; shape: number[]; region: Region }
  /** `start + step * flatIndex` of the virtual array `shape`, read over `region`. */
  | { kind: 'arange'; start: number; step: number; shape: number[]; region: Region }
  /** The same value everywhere. */
  | { kind: 'fill'; value: number }
  /** A region (local coordinates) of the dependency `dep` (an index into the task's deps). */
  | { kind: 'input'; dep: number; region: Region };

export type UnaryOp = 'neg' | 'abs' | 'exp' | 'log' | 'sqrt' | 'sin' | 'cos' | 'tanh' | 'square' | 'round' | 'isnan' | 'isfinite' | 'floor' | 'ceil';
export type BinaryOp = 'add' | 'sub' | 'mul' | 'div' | 'pow' | 'min' | 'max' | CompareOp;
/** Comparisons give 1 where true and 0 where false: a `bool` program's values. */
export type CompareOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';
export const COMPARE_OPS: CompareOp[] = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'];

export type Expr =
  | { kind: 'leaf'; leaf: Leaf }
  | { kind: 'unary'; op: UnaryOp; arg: Expr }
  | { kind: 'clip'; arg: Expr; lo: number; hi: number }
  | { kind: 'binary'; op: BinaryOp; a: Expr; b: Expr }
  /** `a` where `cond` is non-zero, else `b` (numpy.where); NaN in `cond` counts as true, as in NumPy. */
  | { kind: 'where'; cond: Expr; a: Expr; b: Expr }
  /**
   * Broadcast `arg` (of shape `from`) to the program's shape. Without `axes`, NumPy's rule (axes
   * aligned on the right, leading axes added). With `axes`, axis d of `from` runs along program
   * axis `axes[d]`, or along none when it is -1 (then `from[d]` must be 1: an axis an integer
   * index dropped); program axes no axis runs along are repeated (a `None` new axis). Either way
   * a size-1 axis of `from` repeats. A pure re-indexing: backends fold it into leaf strides.
   */
  | { kind: 'broadcast'; arg: Expr; from: number[]; axes?: number[] };

export type ReduceOp = 'sum' | 'mean' | 'min' | 'max' | 'var' | 'std' | 'argmin' | 'argmax' | 'prod' | 'nanprod' | 'nanmin' | 'nanmax' | 'nanmean';

export interface ChunkProgram {
  dtype: DType;
  /** Shape of the elementwise result (before the reduction step). */
  shape: number[];
  expr: Expr;
  /**
   * A data-dependent length (a boolean-mask selection's block, issue 24): the program is 1-D and
   * its length is that of dependency `sizedBy`'s array, known only when the task runs. `shape`
   * and every region count hold 0 until the worker sets them (worker/execute.ts).
   */
  sizedBy?: number;
  /** The chunk step of a reduction, over all axes (`axis: null`) or one axis. */
  reduce?: { op: ReduceOp; axis: number | null; ddof?: number; /** global offset of this chunk on the reduced axes, for arg* */ offset?: number[]; /** global shape, for arg* flat indices */ globalShape?: number[] };
}

/**
 * Partial result of a reduction: named float64 fields of the reduced shape.
 * sum: {sum}; mean: {sum, count}; var/std: {count, mean, m2} (Chan et al.'s parallel form);
 * min/max/prod/nanprod: {value}; argmin/argmax: {value, index} with global flat or axis indices;
 * nanmin/nanmax: {value, count}; nanmean: {sum, count} (NaN skipped, counted values only).
 */
export interface Partial {
  op: ReduceOp;
  shape: number[];
  fields: Record<string, Float64Array>;
  /**
   * A sum (or product) of integers, exact (int64, wrapping as NumPy's does): the float64 `sum`
   * (`value`) field rounds above 2**53. Present when every block held integers (js programs of int dtype).
   */
  isum?: BigInt64Array;
}

export type JsonValue = number | string | boolean | null | JsonValue[] | { [k: string]: JsonValue };

/** The fields of each reduction's partial, in the order every backend lays them out. */
export const PARTIAL_FIELDS: Record<ReduceOp, string[]> = {
  sum: ['sum'],
  mean: ['sum', 'count'],
  var: ['count', 'mean', 'm2'],
  std: ['count', 'mean', 'm2'],
  min: ['value'],
  max: ['value'],
  argmin: ['value', 'index'],
  argmax: ['value', 'index'],
  prod: ['value'],
  nanprod: ['value'],
  // How many non-NaN values each lane held: none makes NumPy's NaN (an all-NaN slice).
  nanmin: ['value', 'count'],
  nanmax: ['value', 'count'],
  nanmean: ['sum', 'count'],
};

/** What a task produces and a worker holds. */
export type ChunkValue =
  | { kind: 'array'; array: NDArray }
  | { kind: 'partial'; partial: Partial }
  /** A dataframe partition (or partial aggregate) as Arrow IPC stream bytes. */
  | { kind: 'table'; ipc: Uint8Array; rows: number }
  /** Small structured results (tuning trials, summaries). */
  | { kind: 'json'; value: JsonValue }
  /** Several named arrays from one task (a block QR's factor and R). */
  | { kind: 'arrays'; arrays: Record<string, NDArray> };

export function sizeOf(shape: number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/** Row-major (C order) element strides of a shape. */
export function stridesOf(shape: number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    s[d] = acc;
    acc *= shape[d];
  }
  return s;
}

export function bytesPerElement(dtype: DType): number {
  if (dtype === 'bool') return 1;
  return dtype === 'float32' || dtype === 'int32' ? 4 : 8;
}

export function allocate(dtype: DType, n: number): NumericArray {
  switch (dtype) {
    case 'float64': return new Float64Array(n);
    case 'float32': return new Float32Array(n);
    case 'int32': return new Int32Array(n);
    case 'int64': return new BigInt64Array(n);
    case 'bool': return new Uint8Array(n);
  }
}

/**
 * A program's output of `dtype` from the float64 (or float32) values it was computed in: NumPy's
 * cast to bool (non-zero, NaN included, is True), integers truncated toward zero (int32 wrapping
 * as a typed array stores it). The js interpreter and the addon's host side share it, so a bool
 * or integer program gives the same values on every backend.
 */
export function castComputed(dtype: DType, data: Float64Array | Float32Array): NumericArray {
  switch (dtype) {
    case 'bool': return Uint8Array.from(data, (x) => (x !== 0 ? 1 : 0));
    case 'int32': return Int32Array.from(data, Math.trunc);
    case 'int64': return BigInt64Array.from(data, (x) => BigInt(Math.trunc(x)));
    default: return data;
  }
}

export function valueBytes(v: ChunkValue): number {
  switch (v.kind) {
    case 'array': return v.array.data.byteLength;
    case 'table': return v.ipc.byteLength;
    case 'json': return JSON.stringify(v.value).length;
    case 'arrays': return Object.values(v.arrays).reduce((n, a) => n + a.data.byteLength, 0);
    case 'partial': {
      let b = v.partial.isum?.byteLength ?? 0;
      for (const f of Object.values(v.partial.fields)) b += f.byteLength;
      return b;
    }
  }
}

/**
 * The program axis that axis `d` of a broadcast's source runs along, in a program of `outNd`
 * axes (-1: none). Without `axes` NumPy's right alignment.
 */
export function broadcastTarget(e: { from: number[]; axes?: number[] }, d: number, outNd: number): number {
  return e.axes ? e.axes[d] : d + outNd - e.from.length;
}

/** Why broadcast `e` cannot produce a program of `shape`, or null when it can. */
export function broadcastProblem(e: { from: number[]; axes?: number[] }, shape: number[]): string | null {
  const what = () => `cannot broadcast ${e.from.join('x') || '()'}${e.axes ? ` (axes ${e.axes.join(',')})` : ''} to ${shape.join('x') || '()'}`;
  if (e.axes && e.axes.length !== e.from.length) return what();
  for (let d = 0; d < e.from.length; d++) {
    const o = broadcastTarget(e, d, shape.length);
    if (o < -1 || o >= shape.length || (o === -1 && (e.axes === undefined || e.from[d] !== 1))) return what();
    if (o >= 0 && e.from[d] !== 1 && e.from[d] !== shape[o]) return what();
  }
  return null;
}
