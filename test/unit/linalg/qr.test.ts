import { describe, expect, it } from 'vitest';
import { matmul } from '../../../worker/kernels/js/linalg/matmul';
import { qr } from '../../../worker/kernels/js/linalg/qr';
import { combineFactor, combineQ, qrBlock, qrBlockFactor, splitRows, stackR, tsqr } from '../../../worker/kernels/js/linalg/tsqr';
import { transpose } from '../../../worker/kernels/js/linalg/transpose';
import { gaussianTestMatrix } from '../../../worker/kernels/js/linalg/randomized';
import { rowBlocks } from '../../../worker/kernels/js/linalg/svd-tall';
import { fixture, mat, maxAbsDiff, orthogonalityError, values } from './helpers';

describe('qr', () => {
  it('factors a hand-computed 3x2 matrix', () => {
    // Columns (3, 4, 0) and (1, 2, 2): r11 = 5, q1 = (0.6, 0.8, 0), r12 = q1 . a2 = 2.2,
    // a2 - 2.2 q1 = (-0.32, 0.24, 2), r22 = sqrt(0.1024 + 0.0576 + 4) = sqrt(4.16).
    const { q, r } = qr(mat([[3, 1], [4, 2], [0, 2]]));
    const r22 = Math.sqrt(4.16);
    const want = [5, 2.2, 0, r22];
    values(r).forEach((x, i) => expect(x).toBeCloseTo(want[i], 14));
    const wantQ = [0.6, -0.32 / r22, 0.8, 0.24 / r22, 0, 2 / r22];
    values(q).forEach((x, i) => expect(x).toBeCloseTo(wantQ[i], 14));
  });

  it('matches numpy with R diagonal made non-negative', () => {
    const { q, r } = qr(fixture('qr_a.npy'));
    expect(maxAbsDiff(q, fixture('qr_q.npy'))).toBeLessThan(1e-14);
    expect(maxAbsDiff(r, fixture('qr_r.npy'))).toBeLessThan(1e-14);
  });

  it('matches numpy on 90 x 70, past one 32-column panel of the blocked algorithm', () => {
    const { q, r } = qr(fixture('qr_mid_a.npy'));
    expect(maxAbsDiff(q, fixture('qr_mid_q.npy'))).toBeLessThan(1e-13);
    expect(maxAbsDiff(r, fixture('qr_mid_r.npy'))).toBeLessThan(1e-13);
  });

  it('handles zero columns and already triangular input', () => {
    const { q, r } = qr(mat([[2, 0, 1], [0, 0, 3], [0, 0, 0], [0, 0, 0]]));
    expect(maxAbsDiff(matmul(q, r), mat([[2, 0, 1], [0, 0, 3], [0, 0, 0], [0, 0, 0]]))).toBeLessThan(1e-15);
    expect(orthogonalityError([q])).toBeLessThan(1e-15);
    expect(values(r).filter((_, i) => i % 4 === 0).every((d) => d >= 0)).toBe(true);
  });

  it('keeps float32 in and out', () => {
    const a = { dtype: 'float32' as const, shape: [3, 2], data: Float32Array.from([3, 1, 4, 2, 0, 2]) };
    const { q, r } = qr(a);
    expect(q.dtype).toBe('float32');
    expect(r.data).toBeInstanceOf(Float32Array);
    expect(r.data[0]).toBeCloseTo(5, 6);
  });

  it('refuses wide and non-finite input', () => {
    expect(() => qr(mat([[1, 2, 3]]))).toThrow(/at least as many rows as columns, got \[1, 3\]/);
    expect(() => qr(mat([[1], [NaN]]))).toThrow(/non-finite value NaN at \[1, 0\]/);
  });
});

describe('tsqr', () => {
  it('gives the Q and R of a direct QR (unique with the sign rule)', () => {
    const a = gaussianTestMatrix(120, 9, 3);
    const direct = qr(a);
    const blocks = rowBlocks(a, 5);
    const t = tsqr(blocks);
    expect(maxAbsDiff(t.r, direct.r)).toBeLessThan(1e-13);
    const qBlocks = splitRows(direct.q, blocks.map((b) => b.shape[0]));
    t.q.forEach((qi, i) => expect(maxAbsDiff(qi, qBlocks[i])).toBeLessThan(1e-13));
    expect(orthogonalityError(t.q)).toBeLessThan(1e-14);
  });

  it('stays exact on stacked triangles spanning several panels (n = 70)', () => {
    const a = gaussianTestMatrix(700, 70, 13);
    const t = tsqr(rowBlocks(a, 7));
    expect(maxAbsDiff(t.r, qr(a).r)).toBeLessThan(1e-12);
    expect(orthogonalityError(t.q)).toBeLessThan(1e-13);
  });

  it('composes from its task steps on uneven blocks', () => {
    const a = gaussianTestMatrix(50, 6, 11);
    const blocks = splitRows(a, [6, 20, 7, 17]);
    const first = blocks.map(qrBlock);
    const stacked = stackR(first.map((f) => f.r));
    expect(stacked.shape).toEqual([24, 6]);
    const second = qrBlock(stacked);
    const q2 = splitRows(second.q, [6, 6, 6, 6]);
    // The stacked triangles give upper-triangular Q2 blocks (what matmul then skips).
    for (const b of q2) for (let i = 0; i < 6; i++) for (let j = 0; j < i; j++) expect(Math.abs(b.data[i * 6 + j] as number)).toBe(0);
    const q = blocks.map((_, i) => combineQ(first[i].q, q2[i]));
    q.forEach((qi, i) => expect(maxAbsDiff(matmul(qi, second.r), blocks[i])).toBeLessThan(1e-14));
    expect(orthogonalityError(q)).toBeLessThan(1e-14);
  });

  it('applies a compact Q1 exactly as the explicit one multiplies', () => {
    for (const [m, n, p] of [[90, 70, 70], [50, 6, 3], [33, 33, 5]]) {
      const a = gaussianTestMatrix(m, n, m + n);
      const w = gaussianTestMatrix(n, p, 7);
      const { factor, r } = qrBlockFactor(a);
      expect(factor.shape).toEqual([n + 2, m]);
      expect(maxAbsDiff(r, qr(a).r)).toBe(0);
      expect(maxAbsDiff(combineFactor(factor, w), matmul(qr(a).q, w))).toBeLessThan(1e-13);
    }
    expect(() => combineFactor(qrBlockFactor(gaussianTestMatrix(9, 4, 1)).factor, mat([[1]]))).toThrow(/the factor has 4 columns, the right-hand side has 1 rows/);
  });

  it('names the offending block', () => {
    expect(() => qrBlock(mat([[1, 2]]))).toThrow(/qrBlock: a TSQR block needs at least as many rows as columns, got \[1, 2\]/);
    expect(() => qrBlockFactor(mat([[1, 2]]))).toThrow(/qrBlockFactor: a TSQR block needs at least as many rows/);
    expect(() => stackR([mat([[1]]), mat([[1, 2], [3, 4]])])).toThrow(/stackR: rs\[1\] is \[2, 2\], expected \[1, 1\]/);
    expect(() => tsqr([mat([[1]]), mat([[1, 2], [3, 4]])])).toThrow(/blocks\[1\] has 2 columns/);
    expect(() => combineQ(mat([[1, 2]]), mat([[1]]))).toThrow(/combineQ: q1 is \[1, 2\], q2 block is \[1, 1\]/);
    expect(() => splitRows(transpose(mat([[1, 2]])), [1])).toThrow(/add up to 1, the array has 2 rows/);
  });
});
