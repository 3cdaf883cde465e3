import { describe, expect, it } from 'vitest';
import { matmul } from '../../../worker/kernels/js/linalg/matmul';
import { transpose } from '../../../worker/kernels/js/linalg/transpose';
import { fixture, mat, maxAbsDiff, naiveMatmul, values } from './helpers';

describe('matmul', () => {
  it('multiplies a hand-computed 2x3 by 3x2', () => {
    const c = matmul(mat([[1, 2, 3], [4, 5, 6]]), mat([[7, 8], [9, 10], [11, 12]]));
    expect(c.shape).toEqual([2, 2]);
    expect(values(c)).toEqual([58, 64, 139, 154]);
  });

  it('accumulates into c0', () => {
    const c = matmul(mat([[1, 2]]), mat([[3], [4]]), mat([[0.5]]));
    expect(values(c)).toEqual([11.5]);
  });

  it('matches numpy (float64, with and without c0)', () => {
    const a = fixture('mm_a.npy');
    const b = fixture('mm_b.npy');
    expect(maxAbsDiff(matmul(a, b), fixture('mm_ab.npy'))).toBeLessThan(1e-14);
    expect(maxAbsDiff(matmul(a, b, fixture('mm_c0.npy')), fixture('mm_ab_plus_c0.npy'))).toBeLessThan(1e-14);
  });

  it('matches numpy in float32 and returns float32', () => {
    const c = matmul(fixture('mm_a32.npy'), fixture('mm_b32.npy'));
    expect(c.dtype).toBe('float32');
    expect(c.data).toBeInstanceOf(Float32Array);
    expect(maxAbsDiff(c, fixture('mm_ab32.npy'))).toBeLessThan(1e-5);
  });

  it('matches the triple loop on ragged sizes, triangular and zero-padded factors', () => {
    // Sizes straddle the 4-wide tiles, the 32-column panels and the 512-long k slabs.
    for (const [m, k, n] of [[1, 1, 1], [5, 3, 7], [33, 530, 37], [64, 17, 2]]) {
      const a = { dtype: 'float64' as const, shape: [m, k], data: Float64Array.from({ length: m * k }, (_, i) => Math.sin(i * 0.37) * 3) };
      const b = { dtype: 'float64' as const, shape: [k, n], data: Float64Array.from({ length: k * n }, (_, i) => Math.cos(i * 0.11)) };
      // Zero an upper-triangular pattern and a whole row into b to exercise the skipping.
      for (let p = 0; p < k; p++) for (let j = 0; j < n; j++) if (p > j + 3 || p === 2) b.data[p * n + j] = 0;
      const c = matmul(a, b);
      const want = naiveMatmul(a, b);
      for (let i = 0; i < want.length; i++) expect(c.data[i]).toBeCloseTo(want[i], 11);
    }
  });

  it('propagates NaN and Inf as IEEE arithmetic does (no zero skipping then)', () => {
    const c = matmul(mat([[0, 1]]), mat([[Infinity], [2]]));
    expect(Number.isNaN(c.data[0])).toBe(true);
  });

  it('refuses mismatched shapes and non-2-D input, saying which', () => {
    expect(() => matmul(mat([[1, 2]]), mat([[1, 2]]))).toThrow(/inner dimensions differ: a is \[1, 2\], b is \[1, 2\]/);
    expect(() => matmul(mat([[1]]), mat([[1]]), mat([[1, 2]]))).toThrow(/c0 is \[1, 2\], the product is \[1, 1\]/);
    expect(() => matmul({ dtype: 'float64', shape: [2], data: new Float64Array(2) }, mat([[1]]))).toThrow(/matmul: a: expected a 2-D array/);
    expect(() => matmul({ dtype: 'int32', shape: [1, 1], data: new Int32Array(1) }, mat([[1]]))).toThrow(/dtype int32 is not supported/);
  });
});

describe('transpose', () => {
  it('transposes a non-square matrix', () => {
    const t = transpose(mat([[1, 2, 3], [4, 5, 6]]));
    expect(t.shape).toEqual([3, 2]);
    expect(values(t)).toEqual([1, 4, 2, 5, 3, 6]);
  });

  it('keeps float32 and handles sizes beyond one tile', () => {
    const a = { dtype: 'float32' as const, shape: [40, 70], data: Float32Array.from({ length: 2800 }, (_, i) => i) };
    const t = transpose(a);
    expect(t.dtype).toBe('float32');
    for (let i = 0; i < 40; i++) for (let j = 0; j < 70; j++) expect(t.data[j * 40 + i]).toBe(i * 70 + j);
  });
});
