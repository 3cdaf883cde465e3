/**
 * Reduced QR of an m x n matrix, m >= n: A = Q R with Q m x n (orthonormal columns) and R n x n
 * upper triangular with a non-negative diagonal. The sign convention makes the factorisation
 * unique for full-rank A, so every backend (and TSQR versus a direct QR) gives the same Q and R
 * up to rounding.
 */
import type { NDArray } from '../../../../common/arrays';
import { check2d, fromMat, LinalgError, requireFinite, toMat, transposeMat, type Mat } from './dense';
import { extractR, factor, formQ } from './householder';

/** QR of a working matrix; Q comes back transposed (`qt`, n x m), the layout the kernels use. */
export function qrMat(a: Mat, what: string): { qt: Mat; r: Mat } {
  const { rows: m, cols: n } = a;
  if (m < n) throw new LinalgError(`${what}: reduced QR needs at least as many rows as columns, got [${m}, ${n}]`);
  requireFinite(a, what);
  const at = transposeMat(a).data;
  const refl = factor(at, m, n);
  const r = extractR(at, m, n);
  const qt = formQ(at, m, n, refl);
  for (let i = 0; i < n; i++) {
    if (r[i * n + i] >= 0) continue;
    for (let j = i; j < n; j++) r[i * n + j] = -r[i * n + j];
    for (let k = 0; k < m; k++) qt[i * m + k] = -qt[i * m + k];
  }
  return { qt: { rows: n, cols: m, data: qt }, r: { rows: n, cols: n, data: r } };
}

/** Reduced QR of a 2-D float array with m >= n rows (Householder, see householder.ts). */
export function qr(a: NDArray): { q: NDArray; r: NDArray } {
  const dtype = check2d(a, 'qr');
  const { qt, r } = qrMat(toMat(a, 'qr'), 'qr');
  return { q: fromMat(transposeMat(qt), dtype), r: fromMat(r, dtype) };
}
