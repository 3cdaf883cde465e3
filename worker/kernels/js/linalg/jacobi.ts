/**
 * One-sided (Hestenes) Jacobi SVD of a square matrix held column-contiguous: `xt` has the n
 * columns of X as rows of length n. Pairs of columns are rotated until every pair is orthogonal to
 * working precision; then the column norms are the singular values, the normalised columns are U,
 * and the accumulated rotations are V. Jacobi is slower than Golub-Kahan but simple and accurate
 * to a few ulps in every singular value (Demmel & Veselic 1992), which suits a reference kernel.
 *
 * Callers first reduce a tall matrix to its R factor (QR preconditioning, Drmac & Veselic 2008):
 * that both shrinks the columns to length n and speeds convergence.
 */
import { LinalgError } from './dense';

const EPS = 2.220446049250313e-16;
const MAX_SWEEPS = 80;

/** Rotates rows p and q (length len) of `x`: (x_p, x_q) <- (c x_p - s x_q, s x_p + c x_q). */
function rotate(x: Float64Array, p: number, q: number, len: number, c: number, s: number): void {
  for (let i = 0; i < len; i++) {
    const a = x[p + i];
    const b = x[q + i];
    x[p + i] = c * a - s * b;
    x[q + i] = s * a + c * b;
  }
}

/**
 * Orthogonalises the columns of X in place and returns V transposed (rows are V's columns):
 * X_in V = X_out, with X_out's columns mutually orthogonal.
 */
export function jacobiOrthogonalize(xt: Float64Array, n: number): Float64Array {
  const vt = new Float64Array(n * n);
  for (let c = 0; c < n; c++) vt[c * n + c] = 1;
  const norm2 = new Float64Array(n);
  // Converged when every |x_p . x_q| <= tol ||x_p|| ||x_q|| (LAPACK dgesvj uses sqrt(m) eps).
  const tol = Math.sqrt(n) * EPS;
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    // Fresh norms each sweep, so the cheap updates below never drift far.
    for (let c = 0; c < n; c++) {
      let s = 0;
      const base = c * n;
      for (let i = 0; i < n; i++) s += xt[base + i] * xt[base + i];
      norm2[c] = s;
    }
    let rotations = 0;
    for (let p = 0; p < n - 1; p++) {
      const xp = p * n;
      for (let q = p + 1; q < n; q++) {
        const a = norm2[p];
        const b = norm2[q];
        if (a === 0 || b === 0) continue;
        const xq = q * n;
        let g = 0;
        for (let i = 0; i < n; i++) g += xt[xp + i] * xt[xq + i];
        if (Math.abs(g) <= tol * Math.sqrt(a) * Math.sqrt(b)) continue;
        const zeta = (b - a) / (2 * g);
        const az = Math.abs(zeta);
        // For huge |zeta| the root is 1/(2 zeta); the guard keeps zeta^2 from overflowing.
        const t = (zeta >= 0 ? 1 : -1) / (az > 1e150 ? 2 * az : az + Math.sqrt(1 + zeta * zeta));
        const c = 1 / Math.sqrt(1 + t * t);
        const s = c * t;
        rotate(xt, xp, xq, n, c, s);
        rotate(vt, xp, xq, n, c, s);
        norm2[p] = a - t * g;
        norm2[q] = b + t * g;
        rotations++;
      }
    }
    if (rotations === 0) return vt;
  }
  throw new LinalgError(`svd: one-sided Jacobi did not converge in ${MAX_SWEEPS} sweeps (n = ${n})`);
}
