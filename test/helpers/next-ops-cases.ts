/**
 * The NumPy cases of issue 24's next ops (isnan, isfinite, floor, ceil, reductions with negative
 * axes, any, all, nansum, prod and the nan reductions, diff, take, transpose with axes, moveaxis,
 * percentile / quantile / median along an axis) for every dtype, on inputs that hold NaN,
 * infinities and odd chunkings. NumPy's answers come from test/helpers/dtype_oracle.py in the
 * test itself. Run in-process by test/unit/engine/next-ops.test.ts and on worker processes by
 * test/integration/next-ops-workers.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DType } from '../../common/arrays';
import { allocate, sizeOf } from '../../common/arrays';
import { DTYPES } from '../../common/dtype-rules';
import { writeNpy } from '../../common/npy';
import type { DtypeCase } from './dtype-cases';

/** Values with NaN, both infinities, -0 and ordinary numbers (integers for the integer dtypes). */
const SPECIAL = [1.5, NaN, -Infinity, 0, -0, Infinity, -2.25, 3, NaN, 7.5, -1, 2];

/** An input of `dtype` and `shape` under `dir`: `values` repeated (integer dtypes: i % 9 - 4; bool: each value's truth, NaN True). */
function input(dir: string, name: string, dtype: DType, shape: number[], values: number[]): string {
  const n = sizeOf(shape);
  const data = allocate(dtype, n);
  for (let i = 0; i < n; i++) {
    const x = values[(i * 5) % values.length];
    const v = dtype === 'int32' || dtype === 'int64' ? (i % 9) - 4 : dtype === 'bool' ? Number(x !== 0) : x;
    if (data instanceof BigInt64Array) data[i] = BigInt(v);
    else data[i] = v;
  }
  const file = `${name}.npy`;
  writeFileSync(join(dir, file), writeNpy({ dtype, shape, data }));
  return file;
}

export function makeCases(): { cases: DtypeCase[]; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gpuflow-next-ops-'));
  const cases: DtypeCase[] = [];
  const add = (kind: 'unary' | 'reduce' | 'diff', op: string, dtype: DType, shape: number[], chunks: number[], axis?: number | null, values = SPECIAL) => {
    const name = `n${cases.length}`;
    const x = input(dir, `${name}x`, dtype, shape, values);
    const params = kind === 'unary' ? { op } : kind === 'diff' ? { axis } : axis === null || axis === undefined ? { op } : { op, axis };
    cases.push({
      name,
      kind,
      op,
      x,
      ...(kind === 'unary' ? {} : { axis: axis ?? null }),
      nodes: [{ id: `${name}_x`, op: 'load_npy', params: { path: join(dir, x), chunks } }, { id: name, op: kind, params }],
      edges: [{ source: `${name}_x`, sourcePort: 'out', target: name, targetPort: 'x' }],
    });
  };
  /** A node `op` with `params` against numpy.<fn>(x, **kwargs). */
  const call = (fn: string, op: string, params: Record<string, unknown>, kwargs: Record<string, unknown>, dtype: DType, shape: number[], chunks: number[], values = SPECIAL) => {
    const name = `n${cases.length}`;
    const x = input(dir, `${name}x`, dtype, shape, values);
    cases.push({
      name,
      kind: 'call',
      op,
      fn,
      kwargs,
      x,
      nodes: [{ id: `${name}_x`, op: 'load_npy', params: { path: join(dir, x), chunks } }, { id: name, op, params }],
      edges: [{ source: `${name}_x`, sourcePort: 'out', target: name, targetPort: 'x' }],
    });
  };
  for (const dtype of DTYPES) {
    // Fancy indexing with an integer list: sorted, unsorted, repeated, negative, strided runs, empty.
    for (const [indices, axis, shape, chunks] of [
      [[0, 3, 5], 0, [7, 4], [3, 3]],
      [[5, 0, 0, -1, 2], 1, [3, 7], [2, 3]],
      [[6, 4, 2, 0], -1, [2, 3, 7], [1, 2, 4]],
      [[1, 2, 3, 4], 1, [3, 6, 2], [2, 4, 1]],
      [[], 0, [5, 3], [2, 2]],
      [[-3], 2, [2, 3, 4], [2, 2, 3]],
    ] as Array<[number[], number, number[], number[]]>) {
      call('take', 'take', { indices, axis }, { indices, axis }, dtype, shape, chunks);
    }
    // transpose with axes (3-D and 4-D, negative axes), reversed 3-D, and moveaxis.
    for (const [axes, shape, chunks] of [
      [[2, 0, 1], [3, 4, 5], [2, 3, 2]],
      [[1, 2, 0], [3, 4, 5], [2, 3, 2]],
      [[-1, 0, -2], [3, 4, 5], [3, 1, 4]],
      [[3, 1, 0, 2], [2, 3, 2, 4], [1, 2, 2, 3]],
      [[0, 1], [4, 6], [3, 4]],
    ] as Array<[number[], number[], number[]]>) {
      call('transpose', 'transpose', { axes }, { axes }, dtype, shape, chunks);
    }
    call('transpose', 'transpose', {}, {}, dtype, [3, 4, 5], [2, 3, 2]);
    for (const [source, destination, shape, chunks] of [
      [[0], [-1], [3, 4, 5], [2, 3, 2]],
      [[2], [0], [3, 4, 5], [2, 3, 2]],
      [[0, 1], [-1, -2], [3, 4, 5], [2, 3, 2]],
      [[3, 0], [1, 2], [2, 3, 2, 4], [1, 2, 2, 3]],
    ] as Array<[number[], number[], number[], number[]]>) {
      call('moveaxis', 'moveaxis', { source, destination }, { source, destination }, dtype, shape, chunks);
    }
    // percentile / quantile / median along an axis (odd chunks along it, so blocks are rechunked),
    // over all elements, with NaN in some lanes (NumPy: NaN there) and without.
    const NO_NAN = [1.5, -2, 0.5, 3, -1.25, 2, 0.75, 9, -4.5, 6];
    // Of a bool, NumPy's percentile subtracts bools (an error) and floor / ceil give float16.
    const isBool = dtype === 'bool';
    if (!isBool) for (const [axis, shape, chunks, values] of [
      [0, [5, 4], [2, 3], NO_NAN],
      [1, [3, 7], [2, 3], NO_NAN],
      [-1, [2, 3, 5], [1, 2, 2], NO_NAN],
      [1, [2, 4, 3], [2, 3, 2], SPECIAL],
    ] as Array<[number, number[], number[], number[]]>) {
      call('percentile', 'percentile', { q: [0, 25, 50, 90, 100], axis }, { q: [0, 25, 50, 90, 100], axis }, dtype, shape, chunks, values);
      call('median', 'median', { axis }, { axis }, dtype, shape, chunks, values);
    }
    if (!isBool) {
      call('quantile', 'quantile', { q: [0.1, 0.5], axis: 0 }, { q: [0.1, 0.5], axis: 0 }, dtype, [6, 3], [4, 2], NO_NAN);
      call('median', 'median', {}, {}, dtype, [4, 5], [3, 2], NO_NAN);
      call('percentile', 'percentile', { q: [10, 75] }, { q: [10, 75] }, dtype, [4, 5], [3, 2], NO_NAN);
    }
    for (const op of isBool ? ['isnan', 'isfinite', 'logical_not'] : ['isnan', 'isfinite', 'floor', 'ceil', 'logical_not']) {
      add('unary', op, dtype, [12], [5]);
      add('unary', op, dtype, [3, 5], [2, 3]);
    }
    // A negative axis counts from the end; sums of infinities (a lane with -inf alone, one with
    // both signs); any / all over all axes and along one, with zeros, NaN and -0 (which is false).
    for (const op of ['sum', 'min', 'argmax', 'mean', 'any', 'all', 'nansum']) {
      add('reduce', op, dtype, [3, 4, 5], [2, 3, 2], -1);
      add('reduce', op, dtype, [3, 4, 5], [2, 3, 2], -3);
    }
    // diff (n=1) along each axis, negative ones too, with chunk edges inside the differences.
    for (const axis of [0, 1, 2, -1, -2]) add('diff', 'diff', dtype, [3, 4, 5], [2, 3, 2], axis);
    add('diff', 'diff', dtype, [7], [3], 0);
    add('diff', 'diff', dtype, [1, 4], [1, 3], 0);
    for (const op of ['any', 'all', 'nansum']) {
      add('reduce', op, dtype, [3, 4, 5], [2, 3, 2], null);
      add('reduce', op, dtype, [4, 6], [3, 4], 1, [0, 0, -0, 0, 0, 0, 2, 0, NaN, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0]);
      add('reduce', op, dtype, [4, 6], [3, 4], null, [1, 2, 3, -1, NaN, 5]);
    }
    // prod and the NaN-skipping reductions: with NaN and infinities (SPECIAL), with finite values
    // whose products stay exact enough to compare, and columns that are all NaN (the value of
    // column c is ALL_NAN[5c % 6], so columns 0 and 1 hold only NaN: NumPy's nanmin gives NaN).
    const FINITE = [1.5, NaN, -2, 0.5, 3, -1.25, NaN, 2, 0.75];
    const ALL_NAN = [NaN, 2, -1.5, 3, 0.5, NaN];
    // diag: a vector onto the k-th diagonal (k above, on, below) and a matrix's k-th diagonal
    // (square, wide, tall, k beyond the matrix: an empty result), odd chunks.
    for (const [k, shape, chunks] of [
      [0, [5], [2]], [2, [4], [3]], [-3, [3], [2]],
      [0, [4, 4], [3, 3]], [1, [3, 6], [2, 4]], [-2, [7, 3], [3, 2]], [2, [5, 5], [2, 3]], [4, [2, 3], [1, 2]],
    ] as Array<[number, number[], number[]]>) {
      call('diag', 'diag', { k }, { k }, dtype, shape, chunks);
    }
    // nanmean over several axes but not all (nansum / count of non-NaN), with keepdims too.
    for (const [axes, keepdims, values] of [[[0, 2], false, SPECIAL], [[1, 2], true, ALL_NAN], [[-1, 0], false, FINITE]] as Array<[number[], boolean, number[]]>) {
      call('nanmean', 'reduce', { op: 'nanmean', axes, keepdims }, { axis: axes, keepdims }, dtype, [3, 4, 5], [2, 3, 2], values);
    }
    // any / all over an empty axis: NumPy's False / True (a constant array), keepdims too.
    for (const fn of ['any', 'all']) {
      call(fn, 'reduce', { op: fn, axis: 0 }, { axis: 0 }, dtype, [0, 3], [2, 2]);
      call(fn, 'reduce', { op: fn, axes: [1], keepdims: true }, { axis: [1], keepdims: true }, dtype, [2, 0, 3], [1, 2, 2]);
      call(fn, 'reduce', { op: fn, keepdims: true }, { keepdims: true }, dtype, [0, 4], [2, 3]);
    }
    // topk (dask.array.topk): largest first, a negative k the smallest first; the axis is rechunked whole.
    for (const [k, axis, shape, chunks] of [
      [2, -1, [3, 7], [2, 3]],
      [-3, 0, [6, 4], [4, 3]],
      [1, 1, [2, 5, 3], [1, 2, 2]],
      [4, 0, [4], [3]],
    ] as Array<[number, number, number[], number[]]>) {
      call('topk', 'topk', { k, axis }, { k, axis }, dtype, shape, chunks, NO_NAN);
    }
    // nancumsum / nancumprod: NaN as 0 / 1 (lanes short enough that integer products stay exact).
    for (const fn of ['nancumsum', 'nancumprod']) {
      call(fn, fn, { axis: 1 }, { axis: 1 }, dtype, [3, 4], [2, 3]);
      call(fn, fn, { axis: -2 }, { axis: -2 }, dtype, [4, 3, 2], [3, 2, 1], FINITE);
      call(fn, fn, {}, {}, dtype, [3, 3], [2, 2], FINITE);
    }
    for (const op of ['prod', 'nanprod', 'nanmin', 'nanmax', 'nanmean']) {
      add('reduce', op, dtype, [3, 4, 5], [2, 3, 2], -1);
      add('reduce', op, dtype, [3, 4, 5], [2, 3, 2], 0, FINITE);
      add('reduce', op, dtype, [3, 4, 5], [2, 3, 2], null, FINITE);
      add('reduce', op, dtype, [4, 6], [3, 4], 0, ALL_NAN);
      add('reduce', op, dtype, [4, 6], [3, 4], 1, ALL_NAN);
    }
  }
  return { cases, dir };
}
