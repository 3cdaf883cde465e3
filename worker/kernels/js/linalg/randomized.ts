/**
 * Randomized truncated SVD (Halko, Martinsson & Tropp 2011, algorithms 4.4 and 5.1) of a large
 * m x n array, as composable steps that map onto blockwise tasks:
 *
 *   omega = gaussianTestMatrix(n, k, seed)        k = rank + oversample; generated anywhere
 *   Y = A omega;  Q = orthonormalize(Y)            blockwise matmul, then TSQR
 *   repeat powerIters: Q = powerIteration(A, Q)    Q <- orth(A orth(A^T Q)); sharpens the spectrum
 *   svdOfProjection(A, Q, rank)                    B = Q^T A (k x n), its small SVD, U = Q U_b
 *
 * The test matrix comes from Philox (common/philox.ts) addressed by the flat index of
 * the n x k matrix, so the result is a pure function of (A, rank, oversample, powerIters, seed)
 * whatever the chunking and backend.
 */
import type { NDArray } from '../../../../common/arrays';
import { PhiloxStream } from '../../../../common/philox';
import { check2d, fromMat, LinalgError, toMat, transposeMat } from './dense';
import { gemm } from './matmul';
import { qrMat } from './qr';
import { svdMat, type Svd } from './svd';

/** A rows x cols float64 matrix of standard normals: element (i, j) is Philox normal i*cols + j. */
export function gaussianTestMatrix(rows: number, cols: number, seed: number): NDArray {
  const stream = new PhiloxStream(seed, 'normal', 0, 1, false);
  const data = new Float64Array(rows * cols);
  for (let i = 0; i < data.length; i++) data[i] = stream.at(i);
  return { dtype: 'float64', shape: [rows, cols], data };
}

/** An orthonormal basis (m x k, float64) of the columns of Y (m >= k): the Q of its QR. */
export function orthonormalize(y: NDArray): NDArray {
  check2d(y, 'orthonormalize');
  return fromMat(transposeMat(qrMat(toMat(y, 'orthonormalize'), 'orthonormalize').qt), 'float64');
}

/** One subspace iteration: Q <- orth(A orth(A^T Q)), re-orthonormalising between products for stability. */
export function powerIteration(a: NDArray, q: NDArray): NDArray {
  check2d(a, 'powerIteration: a');
  check2d(q, 'powerIteration: q');
  if (q.shape[0] !== a.shape[0]) throw new LinalgError(`powerIteration: q has ${q.shape[0]} rows, a has ${a.shape[0]}`);
  const am = toMat(a, 'powerIteration: a');
  const z = gemm(transposeMat(am), toMat(q, 'powerIteration: q'));
  const zq = transposeMat(qrMat(z, 'powerIteration').qt);
  return fromMat(transposeMat(qrMat(gemm(am, zq), 'powerIteration').qt), 'float64');
}

/** B = Q^T A, its SVD, and U = Q U_b, truncated to `rank`. */
export function svdOfProjection(a: NDArray, q: NDArray, rank: number): Svd {
  const dtype = check2d(a, 'svdOfProjection: a');
  check2d(q, 'svdOfProjection: q');
  if (q.shape[0] !== a.shape[0]) throw new LinalgError(`svdOfProjection: q has ${q.shape[0]} rows, a has ${a.shape[0]}`);
  if (!Number.isSafeInteger(rank) || rank < 1 || rank > q.shape[1]) {
    throw new LinalgError(`svdOfProjection: rank must be an integer in [1, ${q.shape[1]}], got ${rank}`);
  }
  const qm = toMat(q, 'svdOfProjection: q');
  const b = gemm(transposeMat(qm), toMat(a, 'svdOfProjection: a'));
  const small = svdMat(b, 'svdOfProjection');
  const u = gemm(qm, small.u);
  const k = u.cols;
  const uk = new Float64Array(u.rows * rank);
  for (let i = 0; i < u.rows; i++) uk.set(u.data.subarray(i * k, i * k + rank), i * rank);
  const n = small.vt.cols;
  return {
    u: fromMat({ rows: u.rows, cols: rank, data: uk }, dtype),
    s: { dtype, shape: [rank], data: dtype === 'float64' ? small.s.slice(0, rank) : Float32Array.from(small.s.subarray(0, rank)) },
    vt: fromMat({ rows: rank, cols: n, data: small.vt.data.slice(0, rank * n) }, dtype),
  };
}

export interface RandomizedSvdOptions {
  /** Number of singular triplets wanted. */
  rank: number;
  /** Extra sample columns beyond `rank` (Halko et al. suggest 5 to 10). */
  oversample?: number;
  /** Subspace iterations; 1 to 3 make slowly decaying spectra accurate. */
  powerIters?: number;
  seed?: number;
}

/** Truncated SVD of `a` by the steps above. */
export function randomizedSvd(a: NDArray, opts: RandomizedSvdOptions): Svd {
  check2d(a, 'randomizedSvd');
  const [m, n] = a.shape;
  const { rank, oversample = 10, powerIters = 2, seed = 0 } = opts;
  if (!Number.isSafeInteger(rank) || rank < 1 || rank > Math.min(m, n)) {
    throw new LinalgError(`randomizedSvd: rank must be an integer in [1, ${Math.min(m, n)}], got ${rank}`);
  }
  if (!Number.isSafeInteger(oversample) || oversample < 0) throw new LinalgError(`randomizedSvd: oversample must be a non-negative integer, got ${oversample}`);
  if (!Number.isSafeInteger(powerIters) || powerIters < 0) throw new LinalgError(`randomizedSvd: powerIters must be a non-negative integer, got ${powerIters}`);
  const k = Math.min(rank + oversample, m, n);
  const omega = gaussianTestMatrix(n, k, seed);
  let q = orthonormalize(fromMat(gemm(toMat(a, 'randomizedSvd'), toMat(omega, 'omega')), 'float64'));
  for (let it = 0; it < powerIters; it++) q = powerIteration(a, q);
  return svdOfProjection(a, q, rank);
}
