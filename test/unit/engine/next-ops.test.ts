/**
 * The ops of issue 24 that Dask users reach for next against NumPy (the cases are
 * test/helpers/next-ops-cases.ts): all cases in one workflow, one run per backend (js, and
 * native-cpu beside js as a worker has it); then hand-computed values and refusals.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { DType } from '../../../common/arrays';
import { checkDtypeCases, dtypeCasesDoc, numpyAnswers } from '../../helpers/dtype-cases';
import { chain, runLocal } from '../../helpers/local-run';
import { localTasks } from '../../helpers/local-tasks';
import { backendSets } from '../../helpers/backend-sets';
import { makeCases } from '../../helpers/next-ops-cases';

describe.each(backendSets())('the next ops (elementwise, reductions, indexing, shape, percentiles) against NumPy (%s)', (_, backends) => {
  it('every case gives NumPy\'s dtype and values', async () => {
    const { cases, dir } = makeCases();
    expect(cases.length).toBeGreaterThanOrEqual(468);
    const want = numpyAnswers(cases, dir);
    const results = await (await localTasks(dtypeCasesDoc(cases), {}, {}, backends())).results();
    checkDtypeCases(cases, results, dir, want);
  }, 60_000);
});

describe('isfinite, negative axes, any / all (hand-computed)', () => {
  it('isfinite of a float32 exp sees float32 overflow (np.isfinite(np.exp(np.float32(100))) is False)', async () => {
    // exp(100) is 2.7e43: finite in float64, inf in float32; the chain must compute in float32.
    const out = await runLocal(chain(['a', 'arange', { start: 99, stop: 101, chunks: 1, dtype: 'float32' }], ['e', 'unary', { op: 'exp' }], ['f', 'unary', { op: 'isfinite' }]));
    expect(out.f).toMatchObject({ kind: 'array', dtype: 'bool', data: [0, 0] });
  });

  it('any over all axes of an empty array without keepdims is refused, naming NumPy\'s answer', async () => {
    await expect(runLocal(chain(['a', 'zeros', { shape: [0, 3], chunks: 2 }], ['s', 'reduce', { op: 'any' }]))).rejects.toThrow(/any over all axes of an empty array is not supported yet \(NumPy gives False\)/);
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

  it('nanmin of an empty axis names NumPy\'s error', async () => {
    await expect(runLocal(chain(['a', 'zeros', { shape: [0, 3], chunks: 2 }], ['s', 'reduce', { op: 'nanmin', axis: 0 }]))).rejects.toThrow(/nanmin of an empty axis has no identity/);
  });

  it('an axis beyond the input is refused with its bounds', async () => {
    await expect(runLocal(chain(['a', 'arange', { start: 0, stop: 6, chunks: 4 }], ['s', 'reduce', { op: 'sum', axis: -2 }]))).rejects.toThrow(/axis -2 is out of bounds for the 1-d input/);
  });
});

describe('linspace(dtype=) against NumPy; take, transpose, moveaxis, median, diag and topk refusals', () => {
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
    await expect(runLocal(chain(x, ['t', 'diag', {}]))).rejects.toThrow(/diag takes a 1-D or 2-D array, got 3-D/);
    await expect(runLocal(chain(x, ['t', 'topk', { k: 5, axis: 1 }]))).rejects.toThrow(/must be a non-zero integer with \|k\| <= 3 \(the length of axis 1\), got 5/);
    // Advanced indexing typed into slice: the integer list points to take, a mask is refused with the reason.
    await expect(runLocal(chain(x, ['t', 'slice', { slices: '[0, 1]' }]))).rejects.toThrow(/is an integer list \(fancy indexing\): use the take node/);
    await expect(runLocal(chain(x, ['t', 'slice', { slices: 'x > 0' }]))).rejects.toThrow(/looks like a boolean mask.*data-dependent size/);
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
