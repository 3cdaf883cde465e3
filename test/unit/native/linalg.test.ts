/**
 * native-cpu's linear algebra against independent oracles: matmul against a plain triple loop;
 * QR and SVD against their defining identities, and SVD against singular values known by
 * construction (A = H1 diag(s) H2 with Householder reflections H1, H2). QR and SVD run twice: by
 * default (LAPACK when the addon found one) and with GPUFLOW_LAPACK=0 (our own kernels);
 * linalg-lapack.test.ts compares both with the js reference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NDArray } from '../../../common/arrays';
import { createNativeCpuBackend } from '../../../worker/kernels/native-cpu';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { lcgValues } from './programs';

const skip = process.env.GPUFLOW_NO_NATIVE === '1';

function mul(a: ArrayLike<number>, b: ArrayLike<number>, m: number, k: number, n: number): Float64Array {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let p = 0; p < k; p++) for (let j = 0; j < n; j++) c[i * n + j] += a[i * k + p] * b[p * n + j];
  return c;
}

function transpose(a: ArrayLike<number>, m: number, n: number): Float64Array {
  const t = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) t[j * m + i] = a[i * n + j];
  return t;
}

/** The n x n Householder reflection I - 2 v v^T / (v^T v): orthogonal and symmetric. */
function reflection(n: number, seed: number): Float64Array {
  const v = lcgValues(n, seed);
  let vv = 0;
  for (const x of v) vv += x * x;
  const h = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) h[i * n + j] = (i === j ? 1 : 0) - (2 * v[i] * v[j]) / vv;
  return h;
}

function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < b.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

const m64 = (rows: number, cols: number, data: Float64Array): NDArray => ({ dtype: 'float64', shape: [rows, cols], data });

for (const lapackEnv of [undefined, '0']) describe.skipIf(skip)(`native-cpu linear algebra${lapackEnv ? ' (GPUFLOW_LAPACK=0)' : ''}`, () => {
  let saved: string | undefined;
  beforeAll(() => {
    saved = process.env.GPUFLOW_LAPACK;
    if (lapackEnv === undefined) delete process.env.GPUFLOW_LAPACK;
    else process.env.GPUFLOW_LAPACK = lapackEnv;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.GPUFLOW_LAPACK;
    else process.env.GPUFLOW_LAPACK = saved;
  });
  const b = createNativeCpuBackend(2) as ArrayBackend;
  if ('unavailable' in b) throw new Error('native-cpu unavailable');

  it('matmul matches a triple loop, with and without c0, float64 and float32', async () => {
    const [m, k, n] = [37, 53, 29];
    const a = lcgValues(m * k, 1);
    const bb = lcgValues(k * n, 2);
    const c0 = lcgValues(m * n, 3);
    const want = mul(a, bb, m, k, n);
    expect(maxAbs((await b.matmul!(m64(m, k, a), m64(k, n, bb))).data as Float64Array, want)).toBeLessThan(1e-13);
    const withC0 = (await b.matmul!(m64(m, k, a), m64(k, n, bb), m64(m, n, c0))).data as Float64Array;
    expect(maxAbs(withC0, want.map((x, i) => x + c0[i]))).toBeLessThan(1e-13);
    const f = (x: Float64Array, r: number, c: number): NDArray => ({ dtype: 'float32', shape: [r, c], data: Float32Array.from(x) });
    const got32 = await b.matmul!(f(a, m, k), f(bb, k, n));
    expect(got32.dtype).toBe('float32');
    expect(maxAbs(got32.data as Float32Array, want)).toBeLessThan(1e-5);
    await expect(b.matmul!(m64(m, k, a), m64(m, k, a))).rejects.toThrow(/cannot multiply/);
  });

  it('qr: Q R = A, Q^T Q = I, R upper triangular with a non-negative diagonal', async () => {
    const [m, n] = [120, 17];
    const a = lcgValues(m * n, 4);
    const { q, r } = await b.qr!(m64(m, n, a));
    expect(maxAbs(mul(q.data as Float64Array, r.data as Float64Array, m, n, n), a)).toBeLessThan(1e-13);
    const qtq = mul(transpose(q.data as Float64Array, m, n), q.data as Float64Array, n, m, n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expect(Math.abs(qtq[i * n + j] - (i === j ? 1 : 0))).toBeLessThan(1e-13);
    for (let i = 0; i < n; i++) {
      expect(r.data[i * n + i]).toBeGreaterThanOrEqual(0);
      for (let j = 0; j < i; j++) expect(r.data[i * n + j]).toBe(0);
    }
  });

  for (const [m, n] of [[9, 5], [5, 9], [6, 6]] as const) {
    it(`svd ${m}x${n} recovers singular values known by construction`, async () => {
      const s = [5, 3, 2, 1, 0.5, 0.25].slice(0, Math.min(m, n));
      // A = H1[:, :p] diag(s) H2[:p, :]
      const h1 = reflection(m, 7);
      const h2 = reflection(n, 8);
      const p = s.length;
      const a = new Float64Array(m * n);
      for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) for (let k = 0; k < p; k++) a[i * n + j] += h1[i * m + k] * s[k] * h2[k * n + j];
      const got = await b.svd!(m64(m, n, a));
      expect(got.u.shape).toEqual([m, p]);
      expect(got.vt.shape).toEqual([p, n]);
      expect(maxAbs(got.s.data as Float64Array, s)).toBeLessThan(1e-13);
      const us = new Float64Array(m * p);
      for (let i = 0; i < m; i++) for (let k = 0; k < p; k++) us[i * p + k] = (got.u.data[i * p + k] as number) * s[k];
      expect(maxAbs(mul(us, got.vt.data as Float64Array, m, p, n), a)).toBeLessThan(1e-13);
      const utu = mul(transpose(got.u.data as Float64Array, m, p), got.u.data as Float64Array, p, m, p);
      for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) expect(Math.abs(utu[i * p + j] - (i === j ? 1 : 0))).toBeLessThan(1e-13);
    });
  }
});
