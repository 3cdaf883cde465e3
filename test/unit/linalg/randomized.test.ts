import { describe, expect, it } from 'vitest';
import { PhiloxStream } from '../../../common/philox';
import { matmul } from '../../../worker/kernels/js/linalg/matmul';
import { gaussianTestMatrix, orthonormalize, powerIteration, randomizedSvd, svdOfProjection } from '../../../worker/kernels/js/linalg/randomized';
import { svd } from '../../../worker/kernels/js/linalg/svd';
import { mat, maxAbsDiff, orthogonalityError, reconstructionError } from './helpers';

/** A 300 x 200 matrix with singular values 100 * 0.8^k: a fast-decaying spectrum. */
function decaying(): { a: ReturnType<typeof gaussianTestMatrix>; s: number[] } {
  const m = 300;
  const n = 200;
  const u = orthonormalize(gaussianTestMatrix(m, n, 1));
  const v = orthonormalize(gaussianTestMatrix(n, n, 2));
  const s = Array.from({ length: n }, (_, k) => 100 * 0.8 ** k);
  const us = { ...u, data: (u.data as Float64Array).map((x, idx) => x * s[idx % n]) };
  const vt = { dtype: 'float64' as const, shape: [n, n], data: new Float64Array(n * n) };
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) vt.data[j * n + i] = v.data[i * n + j] as number;
  return { a: matmul(us, vt), s };
}

describe('randomized SVD', () => {
  it('draws the test matrix from Philox by flat index', () => {
    const g = gaussianTestMatrix(3, 5, 42);
    const ref = new PhiloxStream(42, 'normal', 0, 1, false);
    for (let i = 0; i < 15; i++) expect(g.data[i]).toBe(ref.at(i));
  });

  it('recovers the leading singular triplets of a decaying spectrum', () => {
    const { a, s } = decaying();
    const r = randomizedSvd(a, { rank: 10, seed: 7 });
    expect(r.s.shape).toEqual([10]);
    expect(r.u.shape).toEqual([300, 10]);
    expect(r.vt.shape).toEqual([10, 200]);
    for (let k = 0; k < 10; k++) expect(Math.abs((r.s.data[k] as number) - s[k]) / s[k]).toBeLessThan(1e-10);
    // Same vectors (same sign rule) as the full SVD, to the accuracy the sketch allows:
    // (sigma_20 / sigma_10)^(2 q + 1) = 0.8^50 ~ 1.4e-5 on the subspace with q = 2.
    const full = svd(a);
    const n = 200;
    for (let k = 0; k < 10; k++) {
      for (let j = 0; j < n; j++) expect(Math.abs((r.vt.data[k * n + j] as number) - (full.vt.data[k * n + j] as number))).toBeLessThan(1e-6);
    }
    expect(orthogonalityError([r.u])).toBeLessThan(1e-13);
  });

  it('is exact on a matrix of lower rank than the sketch', () => {
    const low = matmul(gaussianTestMatrix(80, 4, 3), gaussianTestMatrix(4, 60, 4));
    const r = randomizedSvd(low, { rank: 4, oversample: 4, powerIters: 0, seed: 1 });
    expect(reconstructionError([low], [r.u], r.s, r.vt)).toBeLessThan(1e-13);
  });

  it('gives the same numbers for the same seed, and composes from its steps', () => {
    const { a } = decaying();
    const x = randomizedSvd(a, { rank: 5, seed: 3, powerIters: 1, oversample: 5 });
    const y = randomizedSvd(a, { rank: 5, seed: 3, powerIters: 1, oversample: 5 });
    expect(maxAbsDiff(x.u, y.u)).toBe(0);
    let q = orthonormalize(matmul(a, gaussianTestMatrix(200, 10, 3)));
    q = powerIteration(a, q);
    const z = svdOfProjection(a, q, 5);
    expect(maxAbsDiff(z.s, x.s)).toBe(0);
    expect(maxAbsDiff(z.vt, x.vt)).toBe(0);
  });

  it('refuses bad options, naming them', () => {
    const a = mat([[1, 2], [3, 4], [5, 6]]);
    expect(() => randomizedSvd(a, { rank: 3 })).toThrow(/rank must be an integer in \[1, 2\], got 3/);
    expect(() => randomizedSvd(a, { rank: 1, oversample: -1 })).toThrow(/oversample must be a non-negative integer, got -1/);
    expect(() => randomizedSvd(a, { rank: 1, powerIters: 1.5 })).toThrow(/powerIters must be a non-negative integer, got 1.5/);
    expect(() => svdOfProjection(a, orthonormalize(mat([[1], [0], [0]])), 2)).toThrow(/rank must be an integer in \[1, 1\], got 2/);
  });
});
