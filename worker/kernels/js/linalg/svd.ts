/**
 * Thin SVD of a small dense matrix: A (m x n) = U diag(S) V^T with k = min(m, n) singular values
 * in descending order, U m x k and V^T k x n with orthonormal columns / rows.
 *
 * Route: a wide A is transposed; a tall A is first reduced by QR (A = Q R, so the iterations run
 * on the n x n R); R's SVD is one-sided Jacobi (jacobi.ts) up to JACOBI_MAX columns, where it is
 * cheap and relatively accurate, and Golub-Kahan-Reinsch (golub-kahan.ts) above; U = Q U_r.
 *
 * Signs are made deterministic so results compare across backends: in each column of V the
 * component of largest magnitude (the first one on exact ties) is positive, and U's column is
 * flipped with it. Columns of U for zero singular values are completed to an orthonormal set.
 */
import type { NDArray } from '../../../../common/arrays';
import { check2d, fromMat, requireFinite, transposeMat, toMat, type Mat } from './dense';
import { golubKahanSvd } from './golub-kahan';
import { jacobiOrthogonalize } from './jacobi';
import { gemm } from './matmul';
import { qrMat } from './qr';

export interface Svd {
  u: NDArray;
  s: NDArray;
  vt: NDArray;
}

/** The working-form result: U (m x k), S (k), V^T (k x n). */
export interface SvdMat {
  u: Mat;
  s: Float64Array;
  vt: Mat;
}

/** Flips (u_k, v_k) pairs so the largest-|.| entry of each v_k is positive (see the top comment). */
export function fixSigns(u: Mat, vt: Mat): void {
  const k = vt.rows;
  for (let c = 0; c < k; c++) {
    let best = 0;
    let arg = 0;
    for (let j = 0; j < vt.cols; j++) {
      const x = Math.abs(vt.data[c * vt.cols + j]);
      if (x > best) {
        best = x;
        arg = j;
      }
    }
    if (vt.data[c * vt.cols + arg] >= 0) continue;
    for (let j = 0; j < vt.cols; j++) vt.data[c * vt.cols + j] = -vt.data[c * vt.cols + j];
    for (let i = 0; i < u.rows; i++) u.data[i * u.cols + c] = -u.data[i * u.cols + c];
  }
}

/**
 * Replaces the rows of `qt` (k rows of length len, orthonormal except those flagged `missing`)
 * flagged missing by unit vectors orthogonalised against the others (twice, for accuracy).
 */
function completeOrthonormal(qt: Float64Array, k: number, len: number, missing: boolean[]): void {
  let e = 0;
  for (let c = 0; c < k; c++) {
    if (!missing[c]) continue;
    for (; e < len; e++) {
      const w = new Float64Array(len);
      w[e] = 1;
      for (let pass = 0; pass < 2; pass++) {
        for (let o = 0; o < k; o++) {
          if (missing[o] || o === c) continue;
          let d = 0;
          for (let i = 0; i < len; i++) d += qt[o * len + i] * w[i];
          for (let i = 0; i < len; i++) w[i] -= d * qt[o * len + i];
        }
      }
      let nrm = 0;
      for (let i = 0; i < len; i++) nrm += w[i] * w[i];
      nrm = Math.sqrt(nrm);
      if (nrm < 0.5) continue; // e was (nearly) in the span already
      for (let i = 0; i < len; i++) qt[c * len + i] = w[i] / nrm;
      missing[c] = false;
      e++;
      break;
    }
  }
}

/** Up to this size one-sided Jacobi (relatively accurate), above it Golub-Kahan-Reinsch (fast). */
export const JACOBI_MAX = 64;

/**
 * SVD of a square working matrix: U (n x n), S, V^T, descending, signs fixed. `method` forces an
 * algorithm (tests compare the two); by default Jacobi up to JACOBI_MAX columns.
 */
export function svdSquare(x: Mat, method?: 'jacobi' | 'golub-kahan'): SvdMat {
  const n = x.rows;
  const useJacobi = method ? method === 'jacobi' : n <= JACOBI_MAX;
  // Both paths produce U's and V's columns as rows (uCols, vCols) and the singular values.
  let uCols: Float64Array;
  let vCols: Float64Array;
  const s = new Float64Array(n);
  const missing = new Array<boolean>(n).fill(false);
  if (useJacobi) {
    uCols = transposeMat(x).data;
    vCols = jacobiOrthogonalize(uCols, n);
    for (let c = 0; c < n; c++) {
      let ss = 0;
      for (let i = 0; i < n; i++) ss += uCols[c * n + i] * uCols[c * n + i];
      s[c] = Math.sqrt(ss);
    }
    // A column whose norm is tiny next to the largest is numerically zero: its direction is noise.
    const floor = Math.max(...s) * n * 2.220446049250313e-16;
    for (let c = 0; c < n; c++) {
      if (s[c] === 0 || s[c] < floor) missing[c] = true;
      else for (let i = 0; i < n; i++) uCols[c * n + i] /= s[c];
    }
  } else {
    const a = x.data.slice();
    const { w, v } = golubKahanSvd(a, n);
    s.set(w);
    uCols = transposeMat({ rows: n, cols: n, data: a }).data;
    vCols = transposeMat({ rows: n, cols: n, data: v }).data;
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => s[b] - s[a] || a - b);
  const ut = new Float64Array(n * n);
  const vt = new Float64Array(n * n);
  const sOut = new Float64Array(n);
  const missingSorted = order.map((c) => missing[c]);
  order.forEach((c, k) => {
    sOut[k] = s[c];
    vt.set(vCols.subarray(c * n, (c + 1) * n), k * n);
    if (!missing[c]) ut.set(uCols.subarray(c * n, (c + 1) * n), k * n);
  });
  if (missingSorted.some(Boolean)) completeOrthonormal(ut, n, n, missingSorted);
  const u = transposeMat({ rows: n, cols: n, data: ut });
  const vtMat = { rows: n, cols: n, data: vt };
  fixSigns(u, vtMat);
  return { u, s: sOut, vt: vtMat };
}

/** Thin SVD of a working matrix (any shape). */
export function svdMat(a: Mat, what = 'svd'): SvdMat {
  const { rows: m, cols: n } = a;
  requireFinite(a, what); // before any transpose, so the position named is the caller's
  if (m < n) {
    // A^T = V S U^T: swap the roles, then the sign rule is re-applied on the V side.
    const t = svdMat(transposeMat(a), what);
    const u = transposeMat(t.vt);
    const vt = transposeMat(t.u);
    fixSigns(u, vt);
    return { u, s: t.s, vt };
  }
  if (n === 0) return { u: { rows: m, cols: 0, data: new Float64Array(0) }, s: new Float64Array(0), vt: { rows: 0, cols: 0, data: new Float64Array(0) } };
  const { qt, r } = qrMat(a, what);
  const inner = svdSquare(r);
  const u = gemm(transposeMat(qt), inner.u);
  return { u, s: inner.s, vt: inner.vt };
}

/** Thin SVD of a 2-D float array: A = U diag(S) V^T, S descending, signs deterministic. */
export function svd(a: NDArray): Svd {
  const dtype = check2d(a, 'svd');
  const r = svdMat(toMat(a, 'svd'), 'svd');
  const s = fromMat({ rows: 1, cols: r.s.length, data: r.s }, dtype);
  return { u: fromMat(r.u, dtype), s: { dtype, shape: [r.s.length], data: s.data }, vt: fromMat(r.vt, dtype) };
}
