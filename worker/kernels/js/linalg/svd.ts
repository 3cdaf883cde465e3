/**
 * Thin SVD of a small dense matrix: A (m x n) = U diag(S) V^T with k = min(m, n) singular values
 * in descending order, U m x k and V^T k x n with orthonormal columns / rows.
 *
 * Route: a wide A is transposed; a tall A is first reduced by QR (A = Q R, so the Jacobi
 * iterations run on the n x n R); one-sided Jacobi (jacobi.ts) diagonalises R; U = Q U_r.
 *
 * Signs are made deterministic so results compare across backends: in each column of V the
 * component of largest magnitude (the first one on exact ties) is positive, and U's column is
 * flipped with it. Columns of U for zero singular values are completed to an orthonormal set.
 */
import type { NDArray } from '../../../../common/arrays';
import { check2d, fromMat, transposeMat, toMat, type Mat } from './dense';
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

/** SVD of a square working matrix by Jacobi: U (n x n), S, V^T, descending, signs fixed. */
function svdSquare(x: Mat): SvdMat {
  const n = x.rows;
  const xt = transposeMat(x).data;
  const vtRot = jacobiOrthogonalize(xt, n);
  const s = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    let ss = 0;
    for (let i = 0; i < n; i++) ss += xt[c * n + i] * xt[c * n + i];
    s[c] = Math.sqrt(ss);
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => s[b] - s[a] || a - b);
  const ut = new Float64Array(n * n); // rows are U's columns
  const vt = new Float64Array(n * n);
  const sOut = new Float64Array(n);
  // A column whose norm is tiny next to the largest is numerically zero: its direction is noise.
  const floor = s[order[0]] * n * 2.220446049250313e-16;
  const missing: boolean[] = [];
  order.forEach((c, k) => {
    sOut[k] = s[c];
    vt.set(vtRot.subarray(c * n, (c + 1) * n), k * n);
    const zero = s[c] === 0 || s[c] < floor;
    missing.push(zero);
    if (!zero) for (let i = 0; i < n; i++) ut[k * n + i] = xt[c * n + i] / s[c];
  });
  if (missing.some(Boolean)) completeOrthonormal(ut, n, n, missing);
  const u = transposeMat({ rows: n, cols: n, data: ut });
  const vtMat = { rows: n, cols: n, data: vt };
  fixSigns(u, vtMat);
  return { u, s: sOut, vt: vtMat };
}

/** Thin SVD of a working matrix (any shape). */
export function svdMat(a: Mat, what = 'svd'): SvdMat {
  const { rows: m, cols: n } = a;
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
