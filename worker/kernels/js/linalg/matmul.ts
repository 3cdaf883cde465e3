/**
 * Dense matrix product C = A @ B (+ C0), float64 or float32 (computed in float64, see dense.ts).
 *
 * The kernel is a blocked loop over 4x4 tiles of C held in sixteen local accumulators, with A's
 * rows and B's columns (B is packed transposed) both read contiguously along k: that is ~2.5x the
 * speed of a plain i-k-j loop in V8, which spends its time on loads and stores of C. Columns of C
 * are done in panels of 32 so that the panel of B stays in L2 while every row of A streams past;
 * k is split into slabs of 512 for the same reason when it is long.
 *
 * Triangular and block-sparse factors (TSQR's Q2 blocks are upper triangular) cost only their
 * nonzero part: each row of A and column of B records its first and last nonzero, and a tile's
 * k-loop runs over the intersection. Skipping exact zeros changes no result, except when the
 * other factor holds Inf or NaN (0 * Inf is NaN), so the skipping is off when any input is
 * non-finite.
 */
import type { NDArray } from '../../../../common/arrays';
import { check2d, fromMat, LinalgError, resultDType, toMat, type Mat } from './dense';

const TILE = 4;
const PANEL = 32;
const SLAB = 512;

/** Copies `rows` rows of length k into a zero-padded array of `padded` rows. */
function padRows(src: Float64Array, rows: number, k: number, padded: number): Float64Array {
  if (rows === padded) return src;
  const out = new Float64Array(padded * k);
  out.set(src.subarray(0, rows * k));
  return out;
}

/** B (k x n) transposed into `padded` rows of length k. */
function packTransposed(b: Mat, padded: number): Float64Array {
  const { rows: k, cols: n, data } = b;
  const out = new Float64Array(padded * k);
  for (let p = 0; p < k; p++) {
    const row = p * n;
    for (let j = 0; j < n; j++) out[j * k + p] = data[row + j];
  }
  return out;
}

/**
 * Per row (length k) the range [lo, hi) holding its nonzeros; an all-zero row gets [k, 0).
 * Returns null when a value is non-finite, which turns zero skipping off.
 */
function nonzeroRanges(data: Float64Array, rows: number, k: number): { lo: Int32Array; hi: Int32Array } | null {
  const lo = new Int32Array(rows);
  const hi = new Int32Array(rows);
  for (let r = 0; r < rows; r++) {
    const base = r * k;
    let first = k;
    let last = -1;
    for (let p = 0; p < k; p++) {
      const x = data[base + p];
      if (x - x !== 0) return null;
      if (x !== 0) {
        if (first === k) first = p;
        last = p;
      }
    }
    lo[r] = first;
    hi[r] = last + 1;
  }
  return { lo, hi };
}

/** C = A @ B (+ C0) on working matrices. */
export function gemm(a: Mat, b: Mat, c0?: Mat): Mat {
  const m = a.rows;
  const k = a.cols;
  const n = b.cols;
  const mp = Math.ceil(m / TILE) * TILE;
  const np = Math.ceil(n / TILE) * TILE;
  const A = padRows(a.data, m, k, mp);
  const BT = packTransposed(b, np);
  const C = new Float64Array(mp * np);
  if (c0) for (let i = 0; i < m; i++) C.set(c0.data.subarray(i * n, (i + 1) * n), i * np);

  let ra = nonzeroRanges(A, mp, k);
  const rb = ra && nonzeroRanges(BT, np, k);
  if (!rb) ra = null;
  const tileLo = (r: { lo: Int32Array } | null, t: number): number =>
    r ? Math.min(r.lo[t], r.lo[t + 1], r.lo[t + 2], r.lo[t + 3]) : 0;
  const tileHi = (r: { hi: Int32Array } | null, t: number): number =>
    r ? Math.max(r.hi[t], r.hi[t + 1], r.hi[t + 2], r.hi[t + 3]) : k;

  for (let k0 = 0; k0 < k; k0 += SLAB) {
    const k1 = Math.min(k0 + SLAB, k);
    for (let j0 = 0; j0 < np; j0 += PANEL) {
      const j1 = Math.min(j0 + PANEL, np);
      for (let i = 0; i < mp; i += TILE) {
        const aLo = Math.max(k0, tileLo(ra, i));
        const aHi = Math.min(k1, tileHi(ra, i));
        if (aLo >= aHi) continue;
        const a0 = i * k;
        const a1 = a0 + k;
        const a2 = a1 + k;
        const a3 = a2 + k;
        for (let j = j0; j < j1; j += TILE) {
          const lo = Math.max(aLo, tileLo(rb, j));
          const hi = Math.min(aHi, tileHi(rb, j));
          if (lo >= hi) continue;
          const b0 = j * k;
          const b1 = b0 + k;
          const b2 = b1 + k;
          const b3 = b2 + k;
          const c0i = i * np + j;
          const c1i = c0i + np;
          const c2i = c1i + np;
          const c3i = c2i + np;
          let s00 = C[c0i], s01 = C[c0i + 1], s02 = C[c0i + 2], s03 = C[c0i + 3];
          let s10 = C[c1i], s11 = C[c1i + 1], s12 = C[c1i + 2], s13 = C[c1i + 3];
          let s20 = C[c2i], s21 = C[c2i + 1], s22 = C[c2i + 2], s23 = C[c2i + 3];
          let s30 = C[c3i], s31 = C[c3i + 1], s32 = C[c3i + 2], s33 = C[c3i + 3];
          for (let p = lo; p < hi; p++) {
            const x0 = A[a0 + p], x1 = A[a1 + p], x2 = A[a2 + p], x3 = A[a3 + p];
            const y0 = BT[b0 + p], y1 = BT[b1 + p], y2 = BT[b2 + p], y3 = BT[b3 + p];
            s00 += x0 * y0; s01 += x0 * y1; s02 += x0 * y2; s03 += x0 * y3;
            s10 += x1 * y0; s11 += x1 * y1; s12 += x1 * y2; s13 += x1 * y3;
            s20 += x2 * y0; s21 += x2 * y1; s22 += x2 * y2; s23 += x2 * y3;
            s30 += x3 * y0; s31 += x3 * y1; s32 += x3 * y2; s33 += x3 * y3;
          }
          C[c0i] = s00; C[c0i + 1] = s01; C[c0i + 2] = s02; C[c0i + 3] = s03;
          C[c1i] = s10; C[c1i + 1] = s11; C[c1i + 2] = s12; C[c1i + 3] = s13;
          C[c2i] = s20; C[c2i + 1] = s21; C[c2i + 2] = s22; C[c2i + 3] = s23;
          C[c3i] = s30; C[c3i + 1] = s31; C[c3i + 2] = s32; C[c3i + 3] = s33;
        }
      }
    }
  }
  if (np === n && mp === m) return { rows: m, cols: n, data: C };
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++) out.set(C.subarray(i * np, i * np + n), i * n);
  return { rows: m, cols: n, data: out };
}

/**
 * C = A @ B, or A @ B + C0 when `c0` is given (accumulate). A is m x k, B is k x n, C0 is m x n.
 * The result is float32 only when every input is float32.
 */
export function matmul(a: NDArray, b: NDArray, c0?: NDArray): NDArray {
  check2d(a, 'matmul: a');
  check2d(b, 'matmul: b');
  if (a.shape[1] !== b.shape[0]) {
    throw new LinalgError(`matmul: inner dimensions differ: a is [${a.shape.join(', ')}], b is [${b.shape.join(', ')}]`);
  }
  if (c0) {
    check2d(c0, 'matmul: c0');
    if (c0.shape[0] !== a.shape[0] || c0.shape[1] !== b.shape[1]) {
      throw new LinalgError(`matmul: c0 is [${c0.shape.join(', ')}], the product is [${a.shape[0]}, ${b.shape[1]}]`);
    }
  }
  const dtype = c0 ? resultDType(a.dtype, b.dtype, c0.dtype) : resultDType(a.dtype, b.dtype);
  return fromMat(gemm(toMat(a, 'matmul: a'), toMat(b, 'matmul: b'), c0 && toMat(c0, 'matmul: c0')), dtype);
}
