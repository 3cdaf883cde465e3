/**
 * SVD of a square matrix by Golub-Kahan-Reinsch: Householder bidiagonalisation, then implicit
 * shifted QR on the bidiagonal (Golub & Reinsch 1970, as in EISPACK's svd and Numerical Recipes'
 * svdcmp, with the convergence tests in units of eps ||B|| as in NR3).
 *
 * Used for the larger matrices where one-sided Jacobi is slow: Jacobi needs ~12 sweeps on the
 * clustered spectrum of a random 1000 x 1000 R (about a minute here), this needs 8 to 10 s. It is
 * accurate to eps * sigma_max in every singular value (Jacobi is relatively accurate; svd.ts
 * keeps it for small matrices).
 *
 * Layout: every loop runs along rows of row-major arrays. The column operations of the textbook
 * (w = v^T A, A += f v^T ...) are written as sums of rows, and each QR step's rotations are
 * recorded and then swept across U's and V's rows in one pass per row ("wavefront"), with the
 * rotated element carried in a register.
 */
import { LinalgError } from './dense';

const EPS = 2.220446049250313e-16;
const MAX_ITS = 75;

function pythag(a: number, b: number): number {
  const x = Math.abs(a);
  const y = Math.abs(b);
  if (x > y) return x * Math.sqrt(1 + (y / x) * (y / x));
  return y === 0 ? 0 : y * Math.sqrt(1 + (x / y) * (x / y));
}

/**
 * Applies, to every row r of the n-column row-major `x`, the chain of rotations on column pairs
 * (j, j + 1) for j = l .. l + count - 1: (x_j, x_j+1) <- (x_j c + x_j+1 s, x_j+1 c - x_j s).
 */
function sweepRotations(x: Float64Array, rows: number, n: number, l: number, count: number, cs: Float64Array, sn: Float64Array): void {
  // Each row's chain is sequential (the carried value depends on the previous rotation), so four
  // rows advance together: four independent chains keep the FPU busy instead of waiting on one.
  let r = 0;
  for (; r + 4 <= rows; r += 4) {
    const b0 = r * n + l;
    const b1 = b0 + n;
    const b2 = b1 + n;
    const b3 = b2 + n;
    let a0 = x[b0], a1 = x[b1], a2 = x[b2], a3 = x[b3];
    for (let t = 0; t < count; t++) {
      const c = cs[t];
      const s = sn[t];
      const y0 = x[b0 + t + 1], y1 = x[b1 + t + 1], y2 = x[b2 + t + 1], y3 = x[b3 + t + 1];
      x[b0 + t] = a0 * c + y0 * s;
      x[b1 + t] = a1 * c + y1 * s;
      x[b2 + t] = a2 * c + y2 * s;
      x[b3 + t] = a3 * c + y3 * s;
      a0 = y0 * c - a0 * s;
      a1 = y1 * c - a1 * s;
      a2 = y2 * c - a2 * s;
      a3 = y3 * c - a3 * s;
    }
    x[b0 + count] = a0;
    x[b1 + count] = a1;
    x[b2 + count] = a2;
    x[b3 + count] = a3;
  }
  for (; r < rows; r++) {
    const base = r * n + l;
    let a = x[base];
    for (let t = 0; t < count; t++) {
      const b = x[base + t + 1];
      const c = cs[t];
      const s = sn[t];
      x[base + t] = a * c + b * s;
      a = b * c - a * s;
    }
    x[base + count] = a;
  }
}

/**
 * acc[j] += sum over rows k in [k0, k1) of coef(k) * x[k][j], j in [j0, n): a vector-matrix
 * product written as a sum of rows, four rows per pass over acc. `coef` reads the k-th factor.
 */
function accumulateRows(x: Float64Array, n: number, k0: number, k1: number, coefs: Float64Array, cOff: number, cStride: number, acc: Float64Array, j0: number): void {
  let k = k0;
  for (; k + 4 <= k1; k += 4) {
    const t0 = coefs[cOff + k * cStride], t1 = coefs[cOff + (k + 1) * cStride];
    const t2 = coefs[cOff + (k + 2) * cStride], t3 = coefs[cOff + (k + 3) * cStride];
    const r0 = k * n;
    const r1 = r0 + n;
    const r2 = r1 + n;
    const r3 = r2 + n;
    for (let j = j0; j < n; j++) acc[j] += t0 * x[r0 + j] + t1 * x[r1 + j] + t2 * x[r2 + j] + t3 * x[r3 + j];
  }
  for (; k < k1; k++) {
    const t = coefs[cOff + k * cStride];
    const r0 = k * n;
    for (let j = j0; j < n; j++) acc[j] += t * x[r0 + j];
  }
}

/** x[k][j] += coef(k) * acc[j] for rows k in [k0, k1), j in [j0, n): a rank-1 update by rows. */
function rankOneRows(x: Float64Array, n: number, k0: number, k1: number, coefs: Float64Array, cOff: number, cStride: number, acc: Float64Array, j0: number): void {
  for (let k = k0; k < k1; k++) {
    const t = coefs[cOff + k * cStride];
    if (t === 0) continue;
    const r0 = k * n;
    for (let j = j0; j < n; j++) x[r0 + j] += acc[j] * t;
  }
}

/** Right reflector on rows [j0, j1): each row x gets x += (x . u) w over columns [l, n), u = row ri. */
function rowReflect(a: Float64Array, n: number, j0: number, j1: number, ri: number, w: Float64Array): void {
  const l = j0;
  let j = j0;
  for (; j + 4 <= j1; j += 4) {
    const r0 = j * n;
    const r1 = r0 + n;
    const r2 = r1 + n;
    const r3 = r2 + n;
    let d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    for (let k = l; k < n; k++) {
      const u = a[ri + k];
      d0 += a[r0 + k] * u;
      d1 += a[r1 + k] * u;
      d2 += a[r2 + k] * u;
      d3 += a[r3 + k] * u;
    }
    for (let k = l; k < n; k++) {
      const x = w[k];
      a[r0 + k] += d0 * x;
      a[r1 + k] += d1 * x;
      a[r2 + k] += d2 * x;
      a[r3 + k] += d3 * x;
    }
  }
  for (; j < j1; j++) {
    const rj = j * n;
    let d = 0;
    for (let k = l; k < n; k++) d += a[rj + k] * a[ri + k];
    for (let k = l; k < n; k++) a[rj + k] += d * w[k];
  }
}

/**
 * Decomposes the n x n row-major `a` = U diag(w) V^T in place: `a` becomes U, and V (row-major,
 * columns are the right singular vectors) and w are returned. Singular values are non-negative,
 * not sorted.
 */
export function golubKahanSvd(a: Float64Array, n: number): { w: Float64Array; v: Float64Array } {
  const m = n;
  const w = new Float64Array(n);
  const v = new Float64Array(n * n);
  const rv1 = new Float64Array(n);
  const acc = new Float64Array(n);
  let g = 0;
  let scale = 0;
  let anorm = 0;
  let l = 0;

  // Householder reduction to bidiagonal form: diagonal in w, superdiagonal in rv1.
  for (let i = 0; i < n; i++) {
    l = i + 1;
    rv1[i] = scale * g;
    g = 0;
    scale = 0;
    let s = 0;
    for (let k = i; k < m; k++) scale += Math.abs(a[k * n + i]);
    if (scale !== 0) {
      for (let k = i; k < m; k++) {
        a[k * n + i] /= scale;
        s += a[k * n + i] * a[k * n + i];
      }
      const f = a[i * n + i];
      g = f >= 0 ? -Math.sqrt(s) : Math.sqrt(s);
      const h = f * g - s;
      a[i * n + i] = f - g;
      // Left reflector on columns l..n-1: acc = v^T A (a sum of rows), then A += v (acc / h)^T.
      acc.fill(0, l, n);
      accumulateRows(a, n, i, m, a, i, n, acc, l);
      for (let j = l; j < n; j++) acc[j] /= h;
      rankOneRows(a, n, i, m, a, i, n, acc, l);
      for (let k = i; k < m; k++) a[k * n + i] *= scale;
    }
    w[i] = scale * g;
    g = 0;
    s = 0;
    scale = 0;
    if (i !== n - 1) {
      const ri = i * n;
      for (let k = l; k < n; k++) scale += Math.abs(a[ri + k]);
      if (scale !== 0) {
        for (let k = l; k < n; k++) {
          a[ri + k] /= scale;
          s += a[ri + k] * a[ri + k];
        }
        const f = a[ri + l];
        g = f >= 0 ? -Math.sqrt(s) : Math.sqrt(s);
        const h = f * g - s;
        a[ri + l] = f - g;
        for (let k = l; k < n; k++) rv1[k] = a[ri + k] / h;
        rowReflect(a, n, l, m, ri, rv1);
        for (let k = l; k < n; k++) a[ri + k] *= scale;
      }
    }
    anorm = Math.max(anorm, Math.abs(w[i]) + Math.abs(rv1[i]));
  }

  // Accumulate the right-hand transformations into V.
  for (let i = n - 1; i >= 0; i--) {
    const ri = i * n;
    if (i < n - 1) {
      if (g !== 0) {
        for (let j = l; j < n; j++) v[j * n + i] = a[ri + j] / a[ri + l] / g; // two divisions avoid underflow
        acc.fill(0, l, n);
        accumulateRows(v, n, l, n, a, ri, 1, acc, l);
        rankOneRows(v, n, l, n, v, i, n, acc, l);
      }
      for (let j = l; j < n; j++) {
        v[ri + j] = 0;
        v[j * n + i] = 0;
      }
    }
    v[ri + i] = 1;
    g = rv1[i];
    l = i;
  }

  // Accumulate the left-hand transformations into U (overwriting a).
  for (let i = n - 1; i >= 0; i--) {
    l = i + 1;
    const ri = i * n;
    g = w[i];
    for (let j = l; j < n; j++) a[ri + j] = 0;
    if (g !== 0) {
      g = 1 / g;
      acc.fill(0, l, n);
      accumulateRows(a, n, l, m, a, i, n, acc, l);
      const aii = a[ri + i];
      for (let j = l; j < n; j++) acc[j] = (acc[j] / aii) * g;
      rankOneRows(a, n, i, m, a, i, n, acc, l);
      for (let j = i; j < m; j++) a[j * n + i] *= g;
    } else {
      for (let j = i; j < m; j++) a[j * n + i] = 0;
    }
    a[ri + i] += 1;
  }

  // Diagonalise the bidiagonal form.
  const cu = new Float64Array(n);
  const su = new Float64Array(n);
  const cv = new Float64Array(n);
  const sv = new Float64Array(n);
  const tiny = EPS * anorm;
  for (let k = n - 1; k >= 0; k--) {
    for (let its = 1; ; its++) {
      let flag = true;
      let nm = 0;
      for (l = k; l >= 0; l--) {
        // Split tests: rv1[0] is always zero.
        nm = l - 1;
        if (l === 0 || Math.abs(rv1[l]) <= tiny) {
          flag = false;
          break;
        }
        if (Math.abs(w[nm]) <= tiny) break;
      }
      if (flag) {
        // w[nm] is negligible: chase rv1[l] away with rotations on (nm, i), i = l..k.
        let c = 0;
        let s = 1;
        for (let i = l; i <= k; i++) {
          const f = s * rv1[i];
          rv1[i] = c * rv1[i];
          if (Math.abs(f) <= tiny) break;
          g = w[i];
          let h = pythag(f, g);
          w[i] = h;
          h = 1 / h;
          c = g * h;
          s = -f * h;
          for (let r = 0; r < m; r++) {
            const y = a[r * n + nm];
            const z = a[r * n + i];
            a[r * n + nm] = y * c + z * s;
            a[r * n + i] = z * c - y * s;
          }
        }
      }
      let z = w[k];
      if (l === k) {
        if (z < 0) {
          w[k] = -z;
          for (let j = 0; j < n; j++) v[j * n + k] = -v[j * n + k];
        }
        break;
      }
      if (its > MAX_ITS) throw new LinalgError(`svd: Golub-Kahan QR did not converge for singular value ${k} in ${MAX_ITS} iterations (n = ${n})`);
      // Wilkinson-style shift from the bottom 2 x 2 minor.
      let x = w[l];
      nm = k - 1;
      let y = w[nm];
      g = rv1[nm];
      let h = rv1[k];
      let f = ((y - z) * (y + z) + (g - h) * (g + h)) / (2 * h * y);
      g = pythag(f, 1);
      f = ((x - z) * (x + z) + h * (y / (f + (f >= 0 ? Math.abs(g) : -Math.abs(g))) - h)) / x;
      let c = 1;
      let s = 1;
      for (let j = l; j <= nm; j++) {
        const i = j + 1;
        g = rv1[i];
        y = w[i];
        h = s * g;
        g = c * g;
        z = pythag(f, h);
        rv1[j] = z;
        c = f / z;
        s = h / z;
        f = x * c + g * s;
        g = g * c - x * s;
        h = y * s;
        y *= c;
        cv[j - l] = c;
        sv[j - l] = s;
        z = pythag(f, h);
        w[j] = z;
        if (z !== 0) {
          z = 1 / z;
          c = f * z;
          s = h * z;
        }
        f = c * g + s * y;
        x = c * y - s * g;
        cu[j - l] = c;
        su[j - l] = s;
      }
      // The rotations only read the bidiagonal, so V's and U's updates can wait until here.
      sweepRotations(v, n, n, l, nm - l + 1, cv, sv);
      sweepRotations(a, m, n, l, nm - l + 1, cu, su);
      rv1[l] = 0;
      rv1[k] = f;
      w[k] = x;
    }
  }
  return { w, v };
}
