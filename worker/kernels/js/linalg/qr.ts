/**
 * Reduced QR of an m x n matrix, m >= n: A = Q R with Q m x n (orthonormal columns) and R n x n
 * upper triangular with a non-negative diagonal. The sign convention makes the factorisation
 * unique for full-rank A, so every backend (and TSQR versus a direct QR) gives the same Q and R
 * up to rounding.
 */
import type { NDArray } from '../../../../common/arrays';
import { check2d, fromMat, LinalgError, requireFinite, toMat, transposeMat, type Mat } from './dense';
import { applyQ, extractR, factor, formQ, reflectorsOf, type Reflectors } from './householder';

/** Householder factorisation with R's diagonal made non-negative; `sign[i]` = -1 where row i was flipped. */
function factorize(a: Mat, what: string): { at: Float64Array; refl: Reflectors; r: Mat; sign: Float64Array } {
  const { rows: m, cols: n } = a;
  if (m < n) throw new LinalgError(`${what}: reduced QR needs at least as many rows as columns, got [${m}, ${n}]`);
  requireFinite(a, what);
  const at = transposeMat(a).data;
  const refl = factor(at, m, n);
  const r = extractR(at, m, n);
  const sign = new Float64Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    if (r[i * n + i] >= 0) continue;
    sign[i] = -1;
    for (let j = i; j < n; j++) r[i * n + j] = -r[i * n + j];
  }
  return { at, refl, r: { rows: n, cols: n, data: r }, sign };
}

/** QR of a working matrix; Q comes back transposed (`qt`, n x m), the layout the kernels use. */
export function qrMat(a: Mat, what: string): { qt: Mat; r: Mat } {
  const { rows: m, cols: n } = a;
  const { at, refl, r, sign } = factorize(a, what);
  const qt = formQ(at, m, n, refl);
  for (let i = 0; i < n; i++) if (sign[i] < 0) for (let k = 0; k < m; k++) qt[i * m + k] = -qt[i * m + k];
  return { qt: { rows: n, cols: m, data: qt }, r };
}

/**
 * The compact QR of an m x n matrix (m >= n) packed into one float64 array of shape [n + 2, m]:
 * rows 0..n-1 are A's columns after Householder QR (row j holds reflector j below position j, with
 * an implicit 1 at j, and R's column j up to position j), row n holds tau in its first n entries,
 * row n + 1 the signs (+1 / -1) of the diagonal normalisation. Q = H_0 ... H_{n-1} [I; 0] diag(sign).
 */
export function qrFactorMat(a: Mat, what: string): { packed: Mat; r: Mat } {
  const { rows: m, cols: n } = a;
  const { at, refl, r, sign } = factorize(a, what);
  const packed = new Float64Array((n + 2) * m);
  packed.set(at);
  packed.set(refl.tau, n * m);
  packed.set(sign, (n + 1) * m);
  return { packed: { rows: n + 2, cols: m, data: packed }, r };
}

/** Q W for the Q of a packed compact QR (m x n) and W (n x p): the m x p product. */
export function applyFactorMat(packed: Mat, w: Mat, what: string): Mat {
  const m = packed.cols;
  const n = packed.rows - 2;
  if (n < 0 || n > m) throw new LinalgError(`${what}: a packed QR factor has shape [n + 2, m] with n <= m, got [${packed.rows}, ${packed.cols}]`);
  if (w.rows !== n) throw new LinalgError(`${what}: the factor has ${n} columns, the right-hand side has ${w.rows} rows`);
  const p = w.cols;
  const at = packed.data.subarray(0, n * m);
  const tau = packed.data.slice(n * m, n * m + n);
  const sign = packed.data.subarray((n + 1) * m, (n + 1) * m + n);
  // [diag(sign) W; 0], column-contiguous.
  const xt = new Float64Array(p * m);
  for (let i = 0; i < n; i++) {
    const si = sign[i];
    for (let c = 0; c < p; c++) xt[c * m + i] = si * w.data[i * p + c];
  }
  applyQ(at, m, n, reflectorsOf(at, m, n, tau), xt, p);
  return transposeMat({ rows: p, cols: m, data: xt });
}

/** Reduced QR of a 2-D float array with m >= n rows (Householder, see householder.ts). */
export function qr(a: NDArray): { q: NDArray; r: NDArray } {
  const dtype = check2d(a, 'qr');
  const { qt, r } = qrMat(toMat(a, 'qr'), 'qr');
  return { q: fromMat(transposeMat(qt), dtype), r: fromMat(r, dtype) };
}
