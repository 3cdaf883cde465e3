/**
 * native-cpu's QR and SVD against the js reference (worker/kernels/js/linalg), entry by entry:
 * both paths, LAPACK (?gelqf + ?orglq, ?gesdd from the dlopen'ed BLAS or liblapack.so.3) and our
 * own (GPUFLOW_LAPACK=0, which the addon reads on every call). The conventions must be js's:
 * diag(R) >= 0, singular values descending, the sign rule on (u_k, v_k), orthonormal U also for
 * zero singular values (the all-zero matrix gives exactly what js gives). The LAPACK cases are
 * skipped, with a note, on a machine where the addon found no LAPACK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NDArray } from '../../../common/arrays';
import { loadNative } from '../../../native/index';
import { qr as jsQr, svd as jsSvd } from '../../../worker/kernels/js/linalg';
import { createNativeCpuBackend } from '../../../worker/kernels/native-cpu';
import type { ArrayBackend } from '../../../worker/kernels/backend';
import { lcgValues } from './programs';

const skip = process.env.GPUFLOW_NO_NATIVE === '1';
const loaded = skip ? null : loadNative();
const lapackName = loaded && 'addon' in loaded ? ((loaded.addon.info() as unknown as { lapack?: string }).lapack ?? '') : '';
if (!skip && !lapackName) console.warn('linalg-lapack.test: the addon found no LAPACK here; only the GPUFLOW_LAPACK=0 path is tested');

function matrix(rows: number, cols: number, data: Float64Array, dtype: 'float64' | 'float32' = 'float64'): NDArray {
  return { dtype, shape: [rows, cols], data: dtype === 'float32' ? Float32Array.from(data) : data };
}

/** A rank-`rank` rows x cols matrix: the product of two random factors. */
function lowRank(rows: number, cols: number, rank: number, seed: number): Float64Array {
  const b = lcgValues(rows * rank, seed);
  const c = lcgValues(rank * cols, seed + 1);
  const a = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let k = 0; k < rank; k++) for (let j = 0; j < cols; j++) a[i * cols + j] += b[i * rank + k] * c[k * cols + j];
  return a;
}

const d = (a: NDArray): Float64Array | Float32Array => a.data as Float64Array | Float32Array;

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

/** max |X^T X - I| for X rows x cols, row-major. */
function orthoError(x: ArrayLike<number>, rows: number, cols: number): number {
  let e = 0;
  for (let a = 0; a < cols; a++)
    for (let b = 0; b < cols; b++) {
      let s = 0;
      for (let i = 0; i < rows; i++) s += x[i * cols + a] * x[i * cols + b];
      e = Math.max(e, Math.abs(s - (a === b ? 1 : 0)));
    }
  return e;
}

/** max |A - U diag(s) Vt|. */
function reconstructionError(a: ArrayLike<number>, u: ArrayLike<number>, s: ArrayLike<number>, vt: ArrayLike<number>, m: number, n: number): number {
  const p = s.length;
  let e = 0;
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let x = 0;
      for (let k = 0; k < p; k++) x += u[i * p + k] * s[k] * vt[k * n + j];
      e = Math.max(e, Math.abs(x - a[i * n + j]));
    }
  return e;
}

/** Columns 0..cols-1 of the row-major rows x p matrix x, flattened row-major. */
function firstColumns(x: ArrayLike<number>, rows: number, p: number, cols: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < rows; i++) for (let k = 0; k < cols; k++) out.push(x[i * p + k]);
  return out;
}

const paths = [
  { name: 'LAPACK', env: undefined as string | undefined, skip: !lapackName },
  { name: 'own kernels (GPUFLOW_LAPACK=0)', env: '0', skip: false },
];

for (const path of paths) {
  describe.skipIf(skip || path.skip)(`native-cpu qr / svd vs js: ${path.name}`, () => {
    let saved: string | undefined;
    beforeAll(() => {
      saved = process.env.GPUFLOW_LAPACK;
      if (path.env === undefined) delete process.env.GPUFLOW_LAPACK;
      else process.env.GPUFLOW_LAPACK = path.env;
    });
    afterAll(() => {
      if (saved === undefined) delete process.env.GPUFLOW_LAPACK;
      else process.env.GPUFLOW_LAPACK = saved;
    });
    const made = skip ? null : createNativeCpuBackend(2);
    if (made && 'unavailable' in made) throw new Error(`native-cpu unavailable: ${made.unavailable}`);
    const b = made as ArrayBackend;

    // Tall (QR first), tall with more than js's 64 Jacobi columns (js runs Golub-Kahan), square, wide.
    for (const [m, n] of [[60, 12], [150, 80], [20, 20], [12, 60], [1, 7], [7, 1]] as const) {
      it(`svd ${m}x${n} float64 matches js entry by entry`, async () => {
        const a = lcgValues(m * n, 10 + m + n);
        const got = await b.svd!(matrix(m, n, a));
        const want = jsSvd(matrix(m, n, a));
        const p = Math.min(m, n);
        expect(got.u.shape).toEqual([m, p]);
        expect(got.s.shape).toEqual([p]);
        expect(got.vt.shape).toEqual([p, n]);
        const s = got.s.data as Float64Array;
        for (let k = 1; k < p; k++) expect(s[k]).toBeLessThanOrEqual(s[k - 1]);
        expect(maxDiff(s, d(want.s))).toBeLessThan(1e-12 * s[0]);
        expect(maxDiff(d(got.vt), d(want.vt))).toBeLessThan(1e-9);
        expect(maxDiff(d(got.u), d(want.u))).toBeLessThan(1e-9);
        expect(orthoError(d(got.u), m, p)).toBeLessThan(1e-13);
        expect(reconstructionError(a, d(got.u), s, d(got.vt), m, n)).toBeLessThan(1e-13);
      });
    }

    for (const [m, n] of [[40, 9], [9, 40]] as const) {
      it(`svd ${m}x${n} float32 computes in float64 and rounds, as js does`, async () => {
        const a = matrix(m, n, lcgValues(m * n, 3), 'float32');
        const got = await b.svd!(a);
        const want = jsSvd(a);
        expect(got.u.dtype).toBe('float32');
        expect(maxDiff(d(got.s), d(want.s))).toBeLessThan(1e-6);
        expect(maxDiff(d(got.u), d(want.u))).toBeLessThan(1e-5);
        expect(maxDiff(d(got.vt), d(want.vt))).toBeLessThan(1e-5);
      });
    }

    for (const [m, n] of [[6, 4], [4, 6], [5, 5], [1, 3], [3, 1]] as const) {
      it(`svd of the ${m}x${n} zero matrix is js's: U = I, s = 0, Vt = I`, async () => {
        for (const dtype of ['float64', 'float32'] as const) {
          const a = matrix(m, n, new Float64Array(m * n), dtype);
          const got = await b.svd!(a);
          const want = jsSvd(a);
          expect(Array.from(d(got.s))).toEqual(Array.from(d(want.s)));
          expect(Array.from(d(got.u))).toEqual(Array.from(d(want.u)));
          expect(Array.from(d(got.vt))).toEqual(Array.from(d(want.vt)));
          expect(orthoError(d(got.u), m, Math.min(m, n))).toBe(0);
        }
      });
    }

    for (const [m, n, rank] of [[30, 8, 3], [8, 30, 3], [10, 10, 4], [50, 6, 1]] as const) {
      it(`svd ${m}x${n} of rank ${rank}: zero tail, orthonormal U, the nonzero triplets match js`, async () => {
        const a = lowRank(m, n, rank, 21);
        const got = await b.svd!(matrix(m, n, a));
        const want = jsSvd(matrix(m, n, a));
        const p = Math.min(m, n);
        const s = got.s.data as Float64Array;
        for (let k = rank; k < p; k++) expect(s[k]).toBeLessThan(1e-14 * s[0] * p);
        expect(maxDiff(s, d(want.s))).toBeLessThan(1e-13 * s[0]);
        expect(orthoError(d(got.u), m, p)).toBeLessThan(1e-13);
        expect(orthoError(Array.from({ length: n * p }, (_, i) => d(got.vt)[(i % p) * n + Math.floor(i / p)]), n, p)).toBeLessThan(1e-13);
        expect(reconstructionError(a, d(got.u), s, d(got.vt), m, n)).toBeLessThan(1e-13);
        // Vectors of the zero singular values are any orthonormal completion: compare the others.
        expect(maxDiff(firstColumns(d(got.u), m, p, rank), firstColumns(d(want.u), m, p, rank))).toBeLessThan(1e-9);
        expect(maxDiff(Array.from(d(got.vt)).slice(0, rank * n), Array.from(d(want.vt)).slice(0, rank * n))).toBeLessThan(1e-9);
      });
    }

    it('svd of a matrix with a zero column and a repeated row', async () => {
      const [m, n] = [7, 4];
      const a = lcgValues(m * n, 5);
      for (let i = 0; i < m; i++) a[i * n + 2] = 0;
      a.copyWithin(n, 0, n);
      const got = await b.svd!(matrix(m, n, a));
      const want = jsSvd(matrix(m, n, a));
      expect(maxDiff(d(got.s), d(want.s))).toBeLessThan(1e-13);
      expect(orthoError(d(got.u), m, n)).toBeLessThan(1e-13);
      expect(reconstructionError(a, d(got.u), d(got.s), d(got.vt), m, n)).toBeLessThan(1e-13);
    });

    it('svd rejects a non-finite input, naming the position', async () => {
      const a = lcgValues(12, 1);
      a[5] = Number.NaN;
      await expect(b.svd!(matrix(3, 4, a))).rejects.toThrow(/svd: non-finite value nan at \[1, 1\]/);
    });

    for (const [m, n] of [[50, 12], [13, 13], [200, 70], [9, 1]] as const) {
      it(`qr ${m}x${n} matches js entry by entry (diag R >= 0)`, async () => {
        const a = lcgValues(m * n, 30 + m);
        const got = await b.qr!(matrix(m, n, a));
        const want = jsQr(matrix(m, n, a));
        expect(maxDiff(d(got.r), d(want.r))).toBeLessThan(1e-12);
        expect(maxDiff(d(got.q), d(want.q))).toBeLessThan(1e-12);
        for (let i = 0; i < n; i++) {
          expect(d(got.r)[i * n + i]).toBeGreaterThanOrEqual(0);
          for (let j = 0; j < i; j++) expect(d(got.r)[i * n + j]).toBe(0);
        }
        const f = await b.qr!(matrix(m, n, a, 'float32'));
        const w32 = jsQr(matrix(m, n, a, 'float32'));
        expect(f.q.dtype).toBe('float32');
        expect(maxDiff(d(f.q), d(w32.q))).toBeLessThan(1e-5);
        expect(maxDiff(d(f.r), d(w32.r))).toBeLessThan(1e-5);
      });
    }

    it('qr of a zero matrix: Q = I[:, :n], R = 0, as js', async () => {
      const got = await b.qr!(matrix(5, 3, new Float64Array(15)));
      const want = jsQr(matrix(5, 3, new Float64Array(15)));
      expect(Array.from(d(got.q))).toEqual(Array.from(d(want.q)));
      expect(Array.from(d(got.r))).toEqual(Array.from(d(want.r)));
    });
  });
}
