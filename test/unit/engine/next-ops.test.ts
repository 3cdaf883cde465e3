/**
 * The ops of issue 24 that Dask users reach for next (isnan, isfinite, reduce with a negative
 * axis, any, all, nansum, prod, nanprod, nanmin, nanmax, nanmean, diff, floor, ceil; sums of infinities;
 * take, transpose with axes, moveaxis, percentile / quantile / median along an axis), against NumPy computed in the test
 * (test/helpers/dtype_oracle.py) on inputs that hold NaN, infinities and odd chunkings: all cases
 * in one workflow, one run per backend (js, and native-cpu beside js as a worker has it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DType } from '../../../common/arrays';
import { allocate, sizeOf } from '../../../common/arrays';
import { DTYPES } from '../../../common/dtype-rules';
import { writeNpy } from '../../../common/npy';
import { loadNative } from '../../../native/index';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { createJsBackend } from '../../../worker/kernels/js';
import { createNativeCpuBackend } from '../../../worker/kernels/native-cpu';
import { checkDtypeCases, dtypeCasesDoc, numpyAnswers, type DtypeCase } from '../../helpers/dtype-cases';
import { chain, runLocal } from '../../helpers/local-run';
import { localTasks } from '../../helpers/local-tasks';

const native = loadNative();

function nativeCpu(): ArrayBackend {
  const b = createNativeCpuBackend(2);
  if ('unavailable' in b) throw new Error(b.unavailable);
  return b;
}

/** Values with NaN, both infinities, -0 and ordinary numbers (integers for the integer dtypes). */
const SPECIAL = [1.5, NaN, -Infinity, 0, -0, Infinity, -2.25, 3, NaN, 7.5, -1, 2];

/** An input of `dtype` and `shape` under `dir`: `values` repeated (integer dtypes: i % 9 - 4). */
function input(dir: string, name: string, dtype: DType, shape: number[], values: number[]): string {
  const n = sizeOf(shape);
  const data = allocate(dtype, n);
  for (let i = 0; i < n; i++) {
    const v = dtype === 'int32' || dtype === 'int64' ? (i % 9) - 4 : values[(i * 5) % values.length];
    if (data instanceof BigInt64Array) data[i] = BigInt(v);
    else data[i] = v;
  }
  const file = `${name}.npy`;
  writeFileSync(join(dir, file), writeNpy({ dtype, shape, data }));
  return file;
}

function makeCases(): { cases: DtypeCase[]; dir: string } {
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
    for (const [axis, shape, chunks, values] of [
      [0, [5, 4], [2, 3], NO_NAN],
      [1, [3, 7], [2, 3], NO_NAN],
      [-1, [2, 3, 5], [1, 2, 2], NO_NAN],
      [1, [2, 4, 3], [2, 3, 2], SPECIAL],
    ] as Array<[number, number[], number[], number[]]>) {
      call('percentile', 'percentile', { q: [0, 25, 50, 90, 100], axis }, { q: [0, 25, 50, 90, 100], axis }, dtype, shape, chunks, values);
      call('median', 'median', { axis }, { axis }, dtype, shape, chunks, values);
    }
    call('quantile', 'quantile', { q: [0.1, 0.5], axis: 0 }, { q: [0.1, 0.5], axis: 0 }, dtype, [6, 3], [4, 2], NO_NAN);
    call('median', 'median', {}, {}, dtype, [4, 5], [3, 2], NO_NAN);
    call('percentile', 'percentile', { q: [10, 75] }, { q: [10, 75] }, dtype, [4, 5], [3, 2], NO_NAN);
    for (const op of ['isnan', 'isfinite', 'floor', 'ceil']) {
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

describe.each([
  ['js', () => [createJsBackend()]],
  ...('unavailable' in native ? [] : [['native-cpu', () => [nativeCpu(), createJsBackend()]] as const]),
] as Array<[string, () => ArrayBackend[]]>)('isnan, isfinite, negative axes, any, all, nansum, prod, nan reductions, diff, sums of infinities against NumPy (%s)', (_, backends) => {
  it('every case gives NumPy\'s dtype and values', async () => {
    const { cases, dir } = makeCases();
    const want = numpyAnswers(cases, dir);
    const results = await (await localTasks(dtypeCasesDoc(cases), {}, {}, backends())).results();
    checkDtypeCases(cases, results, dir, want);
  }, 60_000);
});

describe('isfinite, negative axes, any / all (hand-computed)', () => {
  it('isfinite of a float32 exp sees float32 overflow (np.isfinite(np.exp(np.float32(100))) is False)', async () => {
    // exp(100) is 2.7e43: finite in float64, inf in float32; the chain must compute in float32.
    const out = await runLocal(chain(['a', 'arange', { start: 99, stop: 101, chunks: 1, dtype: 'float32' }], ['e', 'unary', { op: 'exp' }], ['f', 'unary', { op: 'isfinite' }]));
    expect(out.f).toMatchObject({ kind: 'array', dtype: 'int32', data: [0, 0] });
  });

  it('any over an empty axis is refused, naming NumPy\'s answer', async () => {
    await expect(runLocal(chain(['a', 'zeros', { shape: [0, 3], chunks: 2 }], ['s', 'reduce', { op: 'any', axis: 0 }]))).rejects.toThrow(/any over an empty axis is not supported yet \(NumPy gives False\)/);
  });

  it('an int64 product is exact and wraps as NumPy\'s (no float64 on the way)', async () => {
    // 3**39 = 4052555153018976267 is above 2**53 (float64 would round it); 3**41 wraps past 2**63.
    const script = 'import numpy as np; x = np.full(41, 3, np.int64); print(np.prod(x[:39]), np.prod(x), np.prod(x.reshape(41, 1), axis=0)[0])';
    const [p39, p41, axis0] = execFileSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' }).trim().split(' ');
    const out = await runLocal(
      chain(['a', 'zeros', { shape: [41], chunks: 7, dtype: 'int64' }], ['t', 'scalar_op', { op: 'add', value: 3 }], ['h', 'slice', { slices: ':39' }], ['p', 'reduce', { op: 'prod' }]),
    );
    expect(out.p).toMatchObject({ kind: 'scalar', dtype: 'int64', exact: p39 });
    const all = await runLocal(chain(['a', 'zeros', { shape: [41, 1], chunks: [5, 1], dtype: 'int32' }], ['t', 'scalar_op', { op: 'add', value: 3 }], ['p', 'reduce', { op: 'prod' }]));
    expect(all.p).toMatchObject({ kind: 'scalar', dtype: 'int64', exact: p41 });
    const ax = await runLocal(chain(['a', 'zeros', { shape: [41, 1], chunks: [5, 1], dtype: 'int32' }], ['t', 'scalar_op', { op: 'add', value: 3 }], ['p', 'reduce', { op: 'prod', axis: 0 }], ['s', 'reduce', { op: 'sum' }]));
    // The axis result is an int64 array (JSON numbers in results): its one element read back exactly through a sum.
    expect(ax.s).toMatchObject({ kind: 'scalar', dtype: 'int64', exact: axis0 });
  });

  it('nanmean over several axes but not all is refused; nanmin of an empty axis names NumPy\'s error', async () => {
    await expect(runLocal(chain(['a', 'zeros', { shape: [2, 3, 4], chunks: 2 }], ['s', 'reduce', { op: 'nanmean', axes: [0, 1] }]))).rejects.toThrow(/nanmean over several axes \(0, 1\) but not all is not supported yet/);
    await expect(runLocal(chain(['a', 'zeros', { shape: [0, 3], chunks: 2 }], ['s', 'reduce', { op: 'nanmin', axis: 0 }]))).rejects.toThrow(/nanmin of an empty axis has no identity/);
  });

  it('an axis beyond the input is refused with its bounds', async () => {
    await expect(runLocal(chain(['a', 'arange', { start: 0, stop: 6, chunks: 4 }], ['s', 'reduce', { op: 'sum', axis: -2 }]))).rejects.toThrow(/axis -2 is out of bounds for the 1-d input/);
  });
});

describe('linspace(dtype=) against NumPy; take, transpose, moveaxis and median refusals', () => {
  it('numpy.linspace with a dtype: computed in float64, floored for integers (-4.1 gives -5), then cast', async () => {
    const cases: Array<[number, number, number, number, DType]> = [[0, 10, 7, 3, 'int32'], [-5, 4, 11, 4, 'int64'], [0, 1, 5, 2, 'float32'], [-1.5, 2.5, 9, 4, 'int32'], [3, 3, 1, 1, 'int64']];
    const script = `import json, numpy as np\nprint(json.dumps([np.linspace(a, b, n, dtype=d).tolist() for (a, b, n, _, d) in ${JSON.stringify(cases)}]))`;
    const want = JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' })) as number[][];
    for (const [i, [start, stop, num, chunks, dtype]] of cases.entries()) {
      const out = await runLocal(chain(['l', 'linspace', { start, stop, num, chunks, dtype }]));
      expect(out.l, `linspace(${start}, ${stop}, ${num}, ${dtype})`).toMatchObject({ kind: 'array', dtype, shape: [num], data: want[i] });
    }
  });

  it('refuses an index out of bounds, an axis list that is not a permutation, and moveaxis with unequal lists', async () => {
    const x = ['a', 'zeros', { shape: [2, 3, 4], chunks: 2 }] as [string, string, Record<string, unknown>];
    await expect(runLocal(chain(x, ['t', 'take', { indices: [0, 3], axis: 1 }]))).rejects.toThrow(/index 3 \(item 1\) is out of bounds for axis 1 with size 3/);
    await expect(runLocal(chain(x, ['t', 'take', { indices: [0], axis: 3 }]))).rejects.toThrow(/axis 3 is out of bounds for the 3-d input/);
    await expect(runLocal(chain(x, ['t', 'transpose', { axes: [0, 0, 1] }]))).rejects.toThrow(/\(0, 0, 1\) is not a permutation of the 3 axes/);
    await expect(runLocal(chain(x, ['t', 'transpose', { axes: [1, 0] }]))).rejects.toThrow(/is not a permutation of the 3 axes/);
    await expect(runLocal(chain(x, ['t', 'moveaxis', { source: [0, 1], destination: [2] }]))).rejects.toThrow(/has 1 axes, source has 2/);
    await expect(runLocal(chain(x, ['t', 'median', { axis: -4 }]))).rejects.toThrow(/axis -4 is out of bounds for the 3-d input/);
    await expect(runLocal(chain(['a', 'zeros', { shape: [0, 3], chunks: 2 }], ['t', 'percentile', { q: [50], axis: 0 }]))).rejects.toThrow(/cannot take the percentile along axis 0 of length 0/);
  });
});

describe('eye and tri against NumPy', () => {
  it('numpy.eye / numpy.tri for square, wide and tall shapes, diagonals above and below, odd chunks', async () => {
    const shapes: Array<[number, number, number, number, DType]> = [[5, 5, 0, 2, 'float64'], [4, 7, 2, 3, 'int32'], [7, 3, -1, 2, 'float32'], [3, 6, -4, 4, 'int64'], [6, 4, 5, 5, 'float64']];
    const script = `import json, numpy as np\nprint(json.dumps([[getattr(np, op)(n, m, k, dtype=d).tolist() for (n, m, k, _, d) in ${JSON.stringify(shapes)}] for op in ('eye', 'tri')]))`;
    const want = JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' })) as number[][][][];
    for (const [o, op] of (['eye', 'tri'] as const).entries()) {
      for (const [i, [n, m, k, chunks, dtype]] of shapes.entries()) {
        const out = await runLocal(chain(['e', op, { N: n, M: m, k, chunks, dtype }]));
        expect(out.e, `${op}(${n}, ${m}, ${k}, ${dtype})`).toMatchObject({ kind: 'array', dtype, shape: [n, m], data: want[o][i].flat() });
      }
    }
  });
});
