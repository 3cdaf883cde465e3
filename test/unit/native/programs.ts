/**
 * Chunk programs that exercise every leaf, op, broadcast and reduction of common/arrays.ts;
 * shared by the native-cpu unit tests and the GPU tests (test/gpu), which compare each backend
 * against the js interpreter.
 */
import type { ChunkProgram, ChunkValue, DType, Expr, Leaf, NDArray, ReduceOp, Region } from '../../../common/arrays';

export const region = (start: number[], step: number[], count: number[]): Region => ({ start, step, count });
export const leaf = (l: Leaf): Expr => ({ kind: 'leaf', leaf: l });
export const fill = (value: number): Expr => leaf({ kind: 'fill', value });
export const bin = (op: Extract<Expr, { kind: 'binary' }>['op'], a: Expr, b: Expr): Expr => ({ kind: 'binary', op, a, b });
export const un = (op: Extract<Expr, { kind: 'unary' }>['op'], arg: Expr): Expr => ({ kind: 'unary', op, arg });

export function normal(seed: number, shape: number[], reg: Region, mean = 10, std = 1): Expr {
  return leaf({ kind: 'random', dist: 'normal', seed, a: mean, b: std, shape, region: reg });
}
export function uniform(seed: number, shape: number[], reg: Region, lo = -2, hi = 3): Expr {
  return leaf({ kind: 'random', dist: 'uniform', seed, a: lo, b: hi, shape, region: reg });
}

/** The seed workload's chunk: (normal(10, 1) + 1)[::2, ::2] over chunk (bi, bj) of an n x n array, then `op`. */
export function seedChunk(dtype: DType, n: number, chunk: number, bi: number, bj: number, op: ReduceOp | null, sliced = true): ChunkProgram {
  const step = sliced ? 2 : 1;
  const count = Math.ceil(chunk / step);
  const r = region([bi * chunk, bj * chunk], [step, step], [count, count]);
  const program: ChunkProgram = { dtype, shape: [count, count], expr: bin('add', normal(1234, [n, n], r), fill(1)) };
  if (op) program.reduce = { op, axis: null };
  return program;
}

export interface Case {
  name: string;
  program: ChunkProgram;
  inputs: ChunkValue[];
  /** Compare bit for bit (uniform generation, exact arithmetic). */
  exact?: boolean;
}

const arr = (dtype: DType, shape: number[], data: Float64Array | Float32Array | Int32Array | Uint8Array): ChunkValue => ({ kind: 'array', array: { dtype, shape, data } });

function ramp(n: number, f: (i: number) => number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => f(i));
}

/** Every case at both float dtypes where it makes sense. */
export function cases(): Case[] {
  const out: Case[] = [];
  const V = [37, 53];
  for (const dtype of ['float64', 'float32'] as const) {
    const f32 = dtype === 'float32';
    const dep64 = arr('float64', [9, 11], ramp(99, (i) => Math.sin(i) * 3 + 0.25));
    const dep32 = arr('float32', [9, 11], Float32Array.from(ramp(99, (i) => Math.cos(i) * 2)));
    const depI = arr('int32', [9, 11], Int32Array.from({ length: 99 }, (_, i) => (i * 7) % 23 - 11));
    out.push(
      { name: `${dtype} uniform, offset region`, program: { dtype, shape: [7, 13], expr: uniform(7, V, region([3, 5], [1, 1], [7, 13])) }, inputs: [], exact: true },
      { name: `${dtype} uniform, odd steps`, program: { dtype, shape: [5, 9], expr: uniform(8, V, region([1, 3], [3, 5], [5, 9])) }, inputs: [], exact: true },
      { name: `${dtype} normal, contiguous from an odd start`, program: { dtype, shape: [6, 17], expr: normal(9, V, region([2, 1], [1, 1], [6, 17]), 0, 2) }, inputs: [] },
      { name: `${dtype} normal [::2, ::2]`, program: { dtype, shape: [8, 10], expr: normal(10, [40, 40], region([0, 2], [2, 2], [8, 10])) }, inputs: [] },
      { name: `${dtype} normal [1::2] (sines only)`, program: { dtype, shape: [9, 7], expr: normal(11, [40, 40], region([1, 1], [2, 2], [9, 7])) }, inputs: [] },
      { name: `${dtype} 1-d random, large seed`, program: { dtype, shape: [1500], expr: normal(2 ** 52 + 12345, [5000], region([777], [1], [1500])) }, inputs: [] },
      { name: `${dtype} arange`, program: { dtype, shape: [4, 6], expr: leaf({ kind: 'arange', start: 0.5, step: 0.1, shape: [10, 10], region: region([2, 1], [2, 1], [4, 6]) }) }, inputs: [], exact: true },
      { name: `${dtype} + 0.1 (unrounded constant)`, program: { dtype, shape: [3, 4], expr: bin('add', uniform(3, [3, 4], region([0, 0], [1, 1], [3, 4])), fill(0.1)) }, inputs: [], exact: true },
      { name: `${dtype} fill on the left`, program: { dtype, shape: [3, 4], expr: bin('sub', fill(0.1), uniform(3, [3, 4], region([0, 0], [1, 1], [3, 4]))) }, inputs: [], exact: true },
      {
        name: `${dtype} inputs of three dtypes`,
        program: { dtype, shape: [4, 5], expr: bin('mul', bin('add', leaf({ kind: 'input', dep: 0, region: region([1, 2], [2, 1], [4, 5]) }), leaf({ kind: 'input', dep: 1, region: region([0, 0], [2, 2], [4, 5]) })), leaf({ kind: 'input', dep: 2, region: region([5, 6], [1, 1], [4, 5]) })) },
        inputs: [dep64, dep32, depI],
        exact: true,
      },
      {
        name: `${dtype} broadcast row and column`,
        program: {
          dtype,
          shape: [6, 7],
          expr: bin('add', { kind: 'broadcast', from: [7], arg: uniform(4, [20], region([3], [2], [7])) }, { kind: 'broadcast', from: [6, 1], arg: leaf({ kind: 'input', dep: 0, region: region([0, 4], [1, 1], [6, 1]) }) }),
        },
        inputs: [dep64],
        exact: true,
      },
      {
        name: `${dtype} broadcast to 3-d`,
        program: { dtype, shape: [3, 4, 5], expr: bin('mul', normal(5, [3, 4, 5], region([0, 0, 0], [1, 1, 1], [3, 4, 5])), { kind: 'broadcast', from: [4, 1], arg: uniform(6, [4, 1], region([0, 0], [1, 1], [4, 1])) }) },
        inputs: [],
      },
    );
    // Every unary op, on values where each is defined.
    for (const op of ['neg', 'abs', 'exp', 'log', 'sqrt', 'sin', 'cos', 'tanh', 'square', 'round'] as const) {
      const lo = op === 'log' || op === 'sqrt' ? 0.5 : -2;
      out.push({ name: `${dtype} ${op}`, program: { dtype, shape: [5, 6], expr: un(op, uniform(12, [5, 6], region([0, 0], [1, 1], [5, 6]), lo, 3)) }, inputs: [], exact: ['neg', 'abs', 'square', 'sqrt', 'round'].includes(op) });
    }
    // round on exact halves (to the even neighbour), just below a half, and the special values.
    const halves = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999999999999994, -0.49999999999999994, 4503599627370495.5, NaN, Infinity];
    out.push({ name: `${dtype} round halves to even`, program: { dtype, shape: [2, 6], expr: un('round', leaf({ kind: 'input', dep: 0, region: region([0, 0], [1, 1], [2, 6]) })) }, inputs: [arr('float64', [2, 6], Float64Array.from(halves))], exact: true });
    // isnan / isfinite (1 / 0) on NaN, both infinities, the largest double and ordinary values.
    const special = [NaN, Infinity, -Infinity, 0, -0, 1.5, -2, Number.MAX_VALUE, -Number.MIN_VALUE, NaN, 3e38, 4e38];
    for (const op of ['isnan', 'isfinite', 'floor', 'ceil'] as const) {
      out.push({ name: `${dtype} ${op} special values`, program: { dtype, shape: [3, 4], expr: un(op, leaf({ kind: 'input', dep: 0, region: region([0, 0], [1, 1], [3, 4]) })) }, inputs: [arr('float64', [3, 4], Float64Array.from(special))], exact: true });
    }
    for (const op of ['add', 'sub', 'mul', 'div', 'pow', 'min', 'max'] as const) {
      const a = uniform(13, [4, 8], region([0, 0], [1, 1], [4, 8]), 0.5, 2);
      const b = leaf({ kind: 'input', dep: 0, region: region([0, 0], [1, 1], [4, 8]) });
      const data = ramp(32, (i) => (i === 5 ? NaN : (i % 7) - 2.5));
      out.push({ name: `${dtype} ${op} with NaN`, program: { dtype, shape: [4, 8], expr: bin(op, a, b) }, inputs: [arr('float64', [4, 8], data)], exact: op !== 'pow' });
      out.push({ name: `${dtype} ${op} constant`, program: { dtype, shape: [4, 8], expr: bin(op, a, fill(1.7)) }, inputs: [], exact: op !== 'pow' });
    }
    out.push({ name: `${dtype} clip`, program: { dtype, shape: [6, 6], expr: { kind: 'clip', lo: -0.5, hi: 0.75, arg: uniform(14, [6, 6], region([0, 0], [1, 1], [6, 6])) } }, inputs: [], exact: true });

    // Reductions: every op, all axes and each axis, over a normal block with ties and NaN cases.
    const block = (): Expr => bin('mul', normal(15, [30, 40], region([3, 2], [1, 3], [11, 12]), 0, 3), fill(f32 ? 1 : 1));
    for (const op of ['sum', 'mean', 'var', 'std', 'min', 'max', 'argmin', 'argmax', 'prod', 'nanprod', 'nanmin', 'nanmax', 'nanmean'] as const) {
      for (const axis of [null, 0, 1]) {
        out.push({ name: `${dtype} ${op} axis ${axis}`, program: { dtype, shape: [11, 12], expr: block(), reduce: { op, axis, offset: [3, 24], globalShape: [30, 40] } }, inputs: [] });
      }
    }
    const ties = arr('float64', [3, 4], Float64Array.from([2, 1, 1, 5, 0, 0, 7, 7, 3, NaN, 3, NaN]));
    // The NaN-skipping reductions also over a block whose column 1 and row 2 hold only NaN (NumPy: NaN there).
    const allNan = arr('float64', [3, 4], Float64Array.from([2, NaN, -1, 5, 0.5, NaN, 7, -3, NaN, NaN, NaN, NaN]));
    for (const op of ['prod', 'nanprod', 'nanmin', 'nanmax', 'nanmean'] as const) {
      for (const axis of [null, 0, 1]) {
        out.push({ name: `${dtype} ${op} axis ${axis}, all-NaN lanes`, program: { dtype, shape: [3, 4], expr: leaf({ kind: 'input', dep: 0, region: region([0, 0], [1, 1], [3, 4]) }), reduce: { op, axis } }, inputs: [allNan], exact: true });
      }
    }
    for (const op of ['min', 'max', 'argmin', 'argmax', 'sum', 'prod', 'nanprod', 'nanmin', 'nanmax', 'nanmean'] as const) {
      for (const axis of [null, 0, 1]) {
        out.push({ name: `${dtype} ${op} axis ${axis}, ties and NaN`, program: { dtype, shape: [3, 4], expr: leaf({ kind: 'input', dep: 0, region: region([0, 0], [1, 1], [3, 4]) }), reduce: { op, axis, offset: [6, 8], globalShape: [9, 12] } }, inputs: [ties], exact: true });
      }
    }
    // Sums with infinities: the compensation term is NaN (inf - inf) but NumPy's sum is the infinity
    // (rows: one -inf, +inf twice, both signs; 20 columns so the SIMD lanes see them too).
    const infs = ramp(60, (i) => (i === 3 ? -Infinity : i === 21 || i === 38 ? Infinity : i === 45 ? Infinity : i === 52 ? -Infinity : (i % 7) - 2.5));
    for (const op of ['sum', 'mean'] as const) {
      for (const axis of [null, 0, 1]) {
        out.push({ name: `${dtype} ${op} axis ${axis}, infinities`, program: { dtype, shape: [3, 20], expr: leaf({ kind: 'input', dep: 0, region: region([0, 0], [1, 1], [3, 20]) }), reduce: { op, axis, offset: [0, 0], globalShape: [3, 20] } }, inputs: [arr('float64', [3, 20], infs)], exact: true });
      }
    }
    out.push({ name: `${dtype} seed chunk sum`, program: seedChunk(dtype, 400, 100, 1, 2, 'sum'), inputs: [] });
    out.push({ name: `${dtype} seed chunk mean, unsliced`, program: seedChunk(dtype, 400, 100, 3, 0, 'mean', false), inputs: [] });
    out.push({ name: `${dtype} seed chunk var`, program: seedChunk(dtype, 400, 100, 2, 2, 'var'), inputs: [] });
    out.push({ name: `${dtype} 0-d`, program: { dtype, shape: [], expr: bin('add', uniform(1, [], region([], [], [])), fill(2)) }, inputs: [], exact: true });
    out.push({ name: `${dtype} empty, summed`, program: { dtype, shape: [0, 5], expr: uniform(1, [0, 5], region([0, 0], [1, 1], [0, 5])), reduce: { op: 'sum', axis: null } }, inputs: [], exact: true });
    out.push({ name: `${dtype} empty, min`, program: { dtype, shape: [3, 0], expr: fill(1), reduce: { op: 'min', axis: null } }, inputs: [], exact: true });
    // A program that is only a constant (zeros(...).sum()): decoding once gave it no stack. The
    // constant is a power of two so that its sums are exact in any order (0.1's were not on CUDA's
    // tree: 1.5000000000000002 against js's 1.5, from the H100 at 0db61e4).
    for (const axis of [null, 1]) out.push({ name: `${dtype} fill only, summed over axis ${axis}`, program: { dtype, shape: [5, 3], expr: fill(0.5), reduce: { op: 'sum', axis } }, inputs: [], exact: true });
    // x[:0].sum(axis=0) and the like: an empty reduced axis gives one identity per lane (NumPy's
    // zeros for sum), and an empty lane has no arg* index (-1).
    for (const op of ['sum', 'mean', 'var', 'max', 'argmin', 'prod', 'nanmean'] as const)
      for (const [shape, axis] of [[[0, 7], 0], [[3, 0, 2], 1], [[4, 0], 1]] as const)
        out.push({ name: `${dtype} ${op} over an empty axis ${axis} of ${shape.join('x')}`, program: { dtype, shape: [...shape], expr: fill(1.5), reduce: { op, axis, offset: shape.map(() => 0), globalShape: [...shape] } }, inputs: [], exact: true });
    // Comparisons (NaN compares false, except !=), in a float program and as a bool program
    // (computed in float64, cast on the host) whose input is a bool array; a bool program summed.
    const cmpData = Float64Array.from({ length: 32 }, (_, i) => [0.5, NaN, 1.25, -0, 0, Infinity, 1.25, -3][i % 8] * (i % 3 === 0 ? 1 : -1));
    const cmpA = leaf({ kind: 'input', dep: 0, region: region([0, 0], [1, 1], [4, 8]) });
    const cmpB = leaf({ kind: 'input', dep: 0, region: region([0, 7], [1, -1], [4, 8]) });
    for (const op of ['eq', 'ne', 'lt', 'le', 'gt', 'ge'] as const) {
      out.push({ name: `${dtype} ${op} times x`, program: { dtype, shape: [4, 8], expr: bin('mul', bin(op, cmpA, cmpB), cmpA) }, inputs: [arr('float64', [4, 8], cmpData)], exact: true });
      out.push({ name: `${dtype} ${op} constant`, program: { dtype, shape: [4, 8], expr: bin(op, cmpA, fill(0)) }, inputs: [arr('float64', [4, 8], cmpData)], exact: true });
    }
    if (dtype === 'float64') {
      const mask = Uint8Array.from({ length: 32 }, (_, i) => (i % 3 === 1 ? 1 : 0));
      const m = leaf({ kind: 'input', dep: 1, region: region([0, 0], [1, 1], [4, 8]) });
      const inputs = [arr('float64', [4, 8], cmpData), arr('bool', [4, 8], mask)];
      out.push({ name: 'bool (x > 0) or mask', program: { dtype: 'bool', shape: [4, 8], expr: bin('max', bin('gt', cmpA, fill(0)), m) }, inputs, exact: true });
      out.push({ name: 'bool x != 0 (NaN is True)', program: { dtype: 'bool', shape: [4, 8], expr: bin('ne', cmpA, fill(0)) }, inputs, exact: true });
      for (const op of ['sum', 'max', 'min', 'argmax'] as const)
        for (const axis of [null, 1]) out.push({ name: `bool (x >= 0) ${op} axis ${axis}`, program: { dtype: 'bool', shape: [4, 8], expr: bin('ge', cmpA, fill(0)), reduce: { op, axis, offset: [0, 0], globalShape: [4, 8] } }, inputs, exact: true });
    }
    if (dtype === 'float64') out.push(...intCases());
    out.push({ name: `${dtype} deep expression`, program: { dtype, shape: [4, 4], expr: bin('add', bin('mul', uniform(1, [4, 4], region([0, 0], [1, 1], [4, 4])), bin('sub', uniform(2, [4, 4], region([0, 0], [1, 1], [4, 4])), bin('div', uniform(3, [4, 4], region([0, 0], [1, 1], [4, 4])), uniform(4, [4, 4], region([0, 0], [1, 1], [4, 4]))))), fill(3)) }, inputs: [] });
  }
  return out;
}

/**
 * Integer programs (computed in float64 by the addon, cast on the host; their reductions folded
 * there, exactly): int32 and int64 arithmetic on int32 inputs, arange leaves, int32 wrapping past
 * 2**31 as the js typed array stores it, and each reduction along both axes and over all.
 */
function intCases(): Case[] {
  const out: Case[] = [];
  const ints = Int32Array.from({ length: 30 }, (_, i) => ((i * 7919) % 41) - 20);
  const x = leaf({ kind: 'input', dep: 0, region: region([0, 0], [1, 1], [5, 6]) });
  const xr = leaf({ kind: 'input', dep: 0, region: region([4, 5], [-1, -1], [5, 6]) });
  const inputs = [arr('int32', [5, 6], ints)];
  for (const dtype of ['int32', 'int64'] as const) {
    out.push({ name: `${dtype} x * 3 - reversed x`, program: { dtype, shape: [5, 6], expr: bin('sub', bin('mul', x, fill(3)), xr) }, inputs, exact: true });
    out.push({ name: `${dtype} abs, square, min, max`, program: { dtype, shape: [5, 6], expr: bin('max', bin('min', un('square', x), fill(150)), un('abs', xr)) }, inputs, exact: true });
    out.push({ name: `${dtype} arange + x`, program: { dtype, shape: [5, 6], expr: bin('add', leaf({ kind: 'arange', start: -7, step: 3, shape: [5, 6], region: region([0, 0], [1, 1], [5, 6]) }), x) }, inputs, exact: true });
    for (const op of ['sum', 'prod', 'min', 'max', 'argmin', 'argmax', 'mean', 'var'] as const)
      for (const axis of [null, 0, 1]) out.push({ name: `${dtype} x + 1 ${op} axis ${axis}`, program: { dtype, shape: [5, 6], expr: bin('add', x, fill(1)), reduce: { op, axis, offset: [5, 0], globalShape: [10, 6] } }, inputs, exact: true });
  }
  // int32 wrapping (a typed array's store): 2**30 * 3 is -1073741824 in int32.
  out.push({ name: 'int32 wraps past 2**31', program: { dtype: 'int32', shape: [5, 6], expr: bin('mul', bin('add', bin('mul', x, fill(0)), fill(2 ** 30)), fill(3)) }, inputs, exact: true });
  return out;
}

/** Deterministic values in [-0.5, 0.5) from a linear congruential generator: test matrices. */
export function lcgValues(n: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out[i] = s / 2147483648 - 0.5;
  }
  return out;
}

/** A rows x cols matrix of lcgValues (rounded once to float32 for that dtype). */
export function lcgMatrix(rows: number, cols: number, seed: number, dtype: 'float64' | 'float32' = 'float64'): NDArray {
  const v = lcgValues(rows * cols, seed);
  return { dtype, shape: [rows, cols], data: dtype === 'float32' ? Float32Array.from(v) : v };
}
