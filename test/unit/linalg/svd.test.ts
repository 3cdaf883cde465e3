import { describe, expect, it } from 'vitest';
import { svd, svdSquare } from '../../../worker/kernels/js/linalg/svd';
import { qrMat } from '../../../worker/kernels/js/linalg/qr';
import { toMat } from '../../../worker/kernels/js/linalg/dense';
import { svdTsqr, rowBlocks } from '../../../worker/kernels/js/linalg/svd-tall';
import { gaussianTestMatrix } from '../../../worker/kernels/js/linalg/randomized';
import { fixture, mat, maxAbsDiff, orthogonalityError, reconstructionError, values } from './helpers';
import { transpose } from '../../../worker/kernels/js/linalg/transpose';

describe('svd (one-sided Jacobi)', () => {
  it('finds the hand-computed SVD of a 2x2', () => {
    // [[3, 0], [4, 5]]: A^T A = [[25, 20], [20, 25]] has eigenvalues 45 and 5, so S = (3 sqrt 5, sqrt 5),
    // V = [[1, 1], [1, -1]] / sqrt 2 (signs: largest entry of each v positive, first on ties).
    const { u, s, vt } = svd(mat([[3, 0], [4, 5]]));
    values(s).forEach((x, i) => expect(x).toBeCloseTo([3 * Math.sqrt(5), Math.sqrt(5)][i], 14));
    const h = Math.SQRT1_2;
    values(vt).forEach((x, i) => expect(x).toBeCloseTo([h, h, h, -h][i], 14));
    // u_k = A v_k / s_k: u_1 = (1, 3) / sqrt 10, u_2 = (3, -1) / sqrt 10.
    const r10 = Math.sqrt(10);
    values(u).forEach((x, i) => expect(x).toBeCloseTo([1 / r10, 3 / r10, 3 / r10, -1 / r10][i], 14));
  });

  it('matches numpy on tall, wide and ill-conditioned matrices', () => {
    for (const name of ['tall', 'wide', 'hilbert', 'mid']) {
      const r = svd(fixture(`svd_${name}_a.npy`));
      const s = fixture(`svd_${name}_s.npy`);
      // Singular values to a few ulps of the largest; vectors to the accuracy their gaps allow.
      expect(maxAbsDiff(r.s, s), name).toBeLessThan(1e-14 * Math.max(1, s.data[0] as number));
      if (name !== 'hilbert') {
        expect(maxAbsDiff(r.u, fixture(`svd_${name}_u.npy`)), name).toBeLessThan(1e-13);
        expect(maxAbsDiff(r.vt, fixture(`svd_${name}_vt.npy`)), name).toBeLessThan(1e-13);
      }
      // Frobenius norms over all entries: ~sqrt(entries) * eps.
      expect(reconstructionError([fixture(`svd_${name}_a.npy`)], [r.u], r.s, r.vt), name).toBeLessThan(1e-13);
      expect(orthogonalityError([r.u]), name).toBeLessThan(1e-13);
      expect(orthogonalityError([transpose(r.vt)]), name).toBeLessThan(1e-13);
    }
  });

  it('gives the same answer by Golub-Kahan as by Jacobi', () => {
    for (const name of ['tall', 'mid', 'hilbert']) {
      const { r } = qrMat(toMat(fixture(`svd_${name}_a.npy`), name), name);
      const j = svdSquare(r, 'jacobi');
      const g = svdSquare(r, 'golub-kahan');
      const scale = j.s[0];
      for (let i = 0; i < j.s.length; i++) expect(Math.abs(g.s[i] - j.s[i]), name).toBeLessThan(1e-14 * scale);
      if (name === 'hilbert') continue; // tiny gaps: vectors are ill-determined
      for (let i = 0; i < j.u.data.length; i++) expect(Math.abs(g.u.data[i] - j.u.data[i]), name).toBeLessThan(1e-12);
      for (let i = 0; i < j.vt.data.length; i++) expect(Math.abs(g.vt.data[i] - j.vt.data[i]), name).toBeLessThan(1e-12);
    }
    // Zero singular values: U from Golub-Kahan stays orthonormal too.
    const z = svdSquare({ rows: 3, cols: 3, data: Float64Array.from([1, 2, 3, 2, 4, 6, 0, 0, 0]) }, 'golub-kahan');
    expect(z.s[1]).toBeLessThan(1e-15);
    expect(orthogonalityError([{ dtype: 'float64', shape: [3, 3], data: z.u.data }])).toBeLessThan(1e-15);
  });

  it('handles diagonal, identity, empty and non-finite input on both paths', () => {
    for (const method of ['jacobi', 'golub-kahan'] as const) {
      const d = svdSquare({ rows: 3, cols: 3, data: Float64Array.from([0, 0, 0, 0, -5, 0, 0, 0, 2]) }, method);
      expect(Array.from(d.s)).toEqual([5, 2, 0]);
      expect(orthogonalityError([{ dtype: 'float64', shape: [3, 3], data: d.u.data }])).toBeLessThan(1e-15);
      const id = svdSquare({ rows: 4, cols: 4, data: Float64Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]) }, method);
      expect(Array.from(id.s)).toEqual([1, 1, 1, 1]);
      expect(Array.from(id.vt.data, (x) => x + 0)).toEqual(Array.from(id.u.data, (x) => x + 0)); // -0 and +0 alike
    }
    const e = svd({ dtype: 'float64', shape: [0, 3], data: new Float64Array(0) });
    expect([e.u.shape, e.s.shape, e.vt.shape]).toEqual([[0, 0], [0], [0, 3]]);
    expect(() => svd(mat([[1, Infinity]]))).toThrow(/svd: non-finite value Infinity at \[0, 1\]/);
  });

  it('gets the small singular values of the Hilbert matrix to high relative accuracy', () => {
    // Jacobi on a graded matrix: relative, not only absolute, accuracy (LAPACK's gesdd is the
    // reference here, so the bound is loose at the tiny end).
    const r = svd(fixture('svd_hilbert_a.npy'));
    const s = fixture('svd_hilbert_s.npy');
    for (let i = 0; i < 8; i++) expect(Math.abs((r.s.data[i] as number) / (s.data[i] as number) - 1)).toBeLessThan(1e-6);
  });

  it('handles rank deficiency: zero singular values, U still orthonormal', () => {
    const a = fixture('svd_rank2_a.npy');
    const r = svd(a);
    const s = fixture('svd_rank2_s.npy');
    expect(maxAbsDiff(r.s, s)).toBeLessThan(1e-14 * (s.data[0] as number));
    expect(orthogonalityError([r.u])).toBeLessThan(1e-14);
    expect(reconstructionError([a], [r.u], r.s, r.vt)).toBeLessThan(1e-14);
    const zero = svd(mat([[0, 0], [0, 0], [0, 0]]));
    expect(values(zero.s)).toEqual([0, 0]);
    expect(orthogonalityError([zero.u])).toBeLessThan(1e-15);
  });

  it('is sign-deterministic: the largest entry of each V column is positive', () => {
    const r = svd(fixture('svd_tall_a.npy'));
    const [k, n] = r.vt.shape;
    for (let c = 0; c < k; c++) {
      const row = values(r.vt).slice(c * n, (c + 1) * n);
      const big = row.reduce((best, x) => (Math.abs(x) > Math.abs(best) ? x : best), 0);
      expect(big).toBeGreaterThan(0);
    }
    // Negating A flips U only.
    const neg = fixture('svd_tall_a.npy');
    const minus = { ...neg, data: (neg.data as Float64Array).map((x) => -x) };
    const rm = svd(minus);
    expect(maxAbsDiff(rm.vt, r.vt)).toBeLessThan(1e-13);
  });

  it('returns float32 for float32 input', () => {
    const a = fixture('svd_tall_a.npy');
    const r = svd({ dtype: 'float32', shape: a.shape, data: Float32Array.from(a.data as Float64Array) });
    expect(r.s.dtype).toBe('float32');
    expect(r.u.data).toBeInstanceOf(Float32Array);
    expect(maxAbsDiff(r.s, fixture('svd_tall_s.npy'))).toBeLessThan(1e-5);
  });
});

describe('svdTsqr', () => {
  it('agrees with the direct SVD on a 400 x 30 matrix in 8 blocks', () => {
    const a = gaussianTestMatrix(400, 30, 5);
    const blocks = rowBlocks(a, 8);
    const t = svdTsqr(blocks);
    const d = svd(a);
    expect(maxAbsDiff(t.s, d.s)).toBeLessThan(1e-13);
    expect(maxAbsDiff(t.vt, d.vt)).toBeLessThan(1e-12);
    expect(reconstructionError(blocks, t.u, t.s, t.vt)).toBeLessThan(1e-14);
    expect(orthogonalityError(t.u)).toBeLessThan(1e-13);
  });

  it('refuses blocks that are too short', () => {
    expect(() => rowBlocks(gaussianTestMatrix(20, 5, 1), 5)).toThrow(/5 blocks of a \[20, 5\] array would have fewer than 5 rows; use at most 4/);
  });
});
