/**
 * Householder QR on the transposed (column-contiguous) layout: `at` holds the n columns of an
 * m x n matrix A as n rows of length m, so every reflector reads and writes contiguous memory.
 *
 * After `factor`, column j of `at` holds R's entries `at[j*m + i]` for i <= j and, below the
 * diagonal, the reflector v_j (with an implicit 1 at position j): H_j = I - tau_j v_j v_j^T, and
 * A = H_0 H_1 ... H_{n-1} [R; 0] (LAPACK's dgeqr2 / dlarfg conventions).
 *
 * Each reflector records the row segments where it is nonzero, and is applied only there. On a
 * dense block that is one segment and costs nothing; on TSQR's stacked R factors (K upper
 * triangles) reflector j is nonzero on K short segments only, which cuts the second-level QR from
 * 2 m n^2 to about (2/3) K n^3 flops, with results identical to the dense loop (the skipped terms
 * are exact zeros, and zero entries outside every reflector's support are never written).
 *
 * Within a panel, reflectors are applied to four columns at a time: one pass over v_j serves four
 * dot products and four updates, which roughly halves the memory traffic of the level-2 loop.
 */
import { gemmNT } from './gemm-nt';

/** Segments closer than this many zeros are merged: computing on a few zeros is cheaper than a new loop. */
const MERGE_GAP = 16;

export interface Reflectors {
  tau: Float64Array;
  /** segs[j]: [start0, end0, start1, end1, ...] rows (> j) where v_j is nonzero. */
  segs: Int32Array[];
}

export function nonzeroSegments(col: Float64Array, base: number, from: number, to: number): Int32Array {
  const out: number[] = [];
  let start = -1;
  let lastNonzero = -1;
  for (let i = from; i < to; i++) {
    if (col[base + i] === 0) continue;
    if (start < 0) start = i;
    else if (i - lastNonzero > MERGE_GAP) {
      out.push(start, lastNonzero + 1);
      start = i;
    }
    lastNonzero = i;
  }
  if (start >= 0) out.push(start, lastNonzero + 1);
  return Int32Array.from(out);
}

/** Applies H_j (reflector in column j of `vt`) to columns [c0, c1) of `x` (both with rows of length m). */
function applyReflector(vt: Float64Array, j: number, m: number, tau: number, seg: Int32Array, x: Float64Array, c0: number, c1: number): void {
  const vj = j * m;
  const ns = seg.length;
  let c = c0;
  for (; c + 4 <= c1; c += 4) {
    const x0 = c * m;
    const x1 = x0 + m;
    const x2 = x1 + m;
    const x3 = x2 + m;
    let d0 = x[x0 + j], d1 = x[x1 + j], d2 = x[x2 + j], d3 = x[x3 + j];
    for (let s = 0; s < ns; s += 2) {
      const e = seg[s + 1];
      for (let i = seg[s]; i < e; i++) {
        const v = vt[vj + i];
        d0 += v * x[x0 + i];
        d1 += v * x[x1 + i];
        d2 += v * x[x2 + i];
        d3 += v * x[x3 + i];
      }
    }
    d0 *= tau; d1 *= tau; d2 *= tau; d3 *= tau;
    x[x0 + j] -= d0; x[x1 + j] -= d1; x[x2 + j] -= d2; x[x3 + j] -= d3;
    for (let s = 0; s < ns; s += 2) {
      const e = seg[s + 1];
      for (let i = seg[s]; i < e; i++) {
        const v = vt[vj + i];
        x[x0 + i] -= d0 * v;
        x[x1 + i] -= d1 * v;
        x[x2 + i] -= d2 * v;
        x[x3 + i] -= d3 * v;
      }
    }
  }
  for (; c < c1; c++) {
    const x0 = c * m;
    let d = x[x0 + j];
    for (let s = 0; s < ns; s += 2) {
      const e = seg[s + 1];
      for (let i = seg[s]; i < e; i++) d += vt[vj + i] * x[x0 + i];
    }
    d *= tau;
    x[x0 + j] -= d;
    for (let s = 0; s < ns; s += 2) {
      const e = seg[s + 1];
      for (let i = seg[s]; i < e; i++) x[x0 + i] -= d * vt[vj + i];
    }
  }
}

/** Columns per panel of the blocked (WY) algorithm. */
const NB = 32;

/** Computes reflector j of column j of `at` in place (dlarfg); returns its segments. */
function makeReflector(at: Float64Array, m: number, j: number, tau: Float64Array): Int32Array {
  const cj = j * m;
  const seg = nonzeroSegments(at, cj, j + 1, m);
  // ||x|| scaled by its largest entry, so squares neither overflow nor underflow.
  let scale = Math.abs(at[cj + j]);
  for (let s = 0; s < seg.length; s += 2) for (let i = seg[s]; i < seg[s + 1]; i++) scale = Math.max(scale, Math.abs(at[cj + i]));
  let below = 0;
  if (scale > 0) {
    for (let s = 0; s < seg.length; s += 2) {
      for (let i = seg[s]; i < seg[s + 1]; i++) {
        const y = at[cj + i] / scale;
        below += y * y;
      }
    }
  }
  if (below === 0) return seg; // already upper triangular here: H_j = I (tau 0)
  const alpha = at[cj + j];
  const a = alpha / scale;
  const norm = scale * Math.sqrt(a * a + below);
  const beta = alpha >= 0 ? -norm : norm;
  tau[j] = (beta - alpha) / beta;
  const inv = 1 / (alpha - beta);
  for (let s = 0; s < seg.length; s += 2) for (let i = seg[s]; i < seg[s + 1]; i++) at[cj + i] *= inv;
  at[cj + j] = beta;
  return seg;
}

/**
 * A panel's reflectors j0 .. j0+jb-1 in WY form, H_j0 ... H_(j0+jb-1) = I - V T V^T (LAPACK's
 * dlarft): V explicit (jb rows of length m, and transposed), T upper triangular, and the rows
 * where any of them is nonzero.
 */
interface Panel {
  j0: number;
  jb: number;
  v: Float64Array;
  vt: Float64Array;
  t: Float64Array;
  rows: Int32Array;
}

function mergeSegments(list: number[][]): Int32Array {
  list.sort((x, y) => x[0] - y[0]);
  const out: number[] = [];
  for (const [s, e] of list) {
    const last = out.length - 1;
    if (last > 0 && s <= out[last] + MERGE_GAP) out[last] = Math.max(out[last], e);
    else out.push(s, e);
  }
  return Int32Array.from(out);
}

function buildPanel(at: Float64Array, m: number, j0: number, jb: number, refl: Reflectors): Panel {
  const v = new Float64Array(jb * m);
  const pieces: number[][] = [];
  for (let i = 0; i < jb; i++) {
    const j = j0 + i;
    if (refl.tau[j] === 0) continue;
    v[i * m + j] = 1;
    pieces.push([j, j + 1]);
    const seg = refl.segs[j];
    for (let s = 0; s < seg.length; s += 2) {
      pieces.push([seg[s], seg[s + 1]]);
      for (let r = seg[s]; r < seg[s + 1]; r++) v[i * m + r] = at[j * m + r];
    }
  }
  const rows = mergeSegments(pieces);
  const vt = new Float64Array(m * jb);
  for (let s = 0; s < rows.length; s += 2) {
    for (let r = rows[s]; r < rows[s + 1]; r++) for (let i = 0; i < jb; i++) vt[r * jb + i] = v[i * m + r];
  }
  // T[0:i, i] = -tau_i T[0:i, 0:i] (V[:, 0:i]^T v_i), T[i][i] = tau_i.
  const t = new Float64Array(jb * jb);
  const w = new Float64Array(jb);
  for (let i = 0; i < jb; i++) {
    const tau = refl.tau[j0 + i];
    t[i * jb + i] = tau;
    if (tau === 0 || i === 0) continue;
    w.fill(0);
    for (let s = 0; s < rows.length; s += 2) gemmNT(v, rows[s], m, v, i * m + rows[s], m, w, 0, 1, i, 1, rows[s + 1] - rows[s], 1);
    for (let r = 0; r < i; r++) {
      let x = 0;
      for (let k = r; k < i; k++) x += t[r * jb + k] * w[k];
      t[r * jb + i] = -tau * x;
    }
  }
  return { j0, jb, v, vt, t, rows };
}

/**
 * Applies I - V op(T) V^T (op = transpose when `trans`) to columns [c0, c1) of `x` (rows of
 * length m): W = V^T X, W = op(T) W, X -= V W, each product over the panel's nonzero rows only.
 */
function applyPanel(p: Panel, m: number, trans: boolean, x: Float64Array, c0: number, c1: number): void {
  const nc = c1 - c0;
  if (nc <= 0) return;
  const { jb, v, vt, t, rows } = p;
  const w = new Float64Array(jb * nc);
  for (let s = 0; s < rows.length; s += 2) {
    gemmNT(v, rows[s], m, x, c0 * m + rows[s], m, w, 0, nc, jb, nc, rows[s + 1] - rows[s], 1);
  }
  // wt = (op(T) W)^T, nc x jb, so the update below is again a row-by-row product.
  const wt = new Float64Array(nc * jb);
  for (let i = 0; i < jb; i++) {
    for (let c = 0; c < nc; c++) {
      let s = 0;
      if (trans) for (let k = 0; k <= i; k++) s += t[k * jb + i] * w[k * nc + c];
      else for (let k = i; k < jb; k++) s += t[i * jb + k] * w[k * nc + c];
      wt[c * jb + i] = s;
    }
  }
  for (let s = 0; s < rows.length; s += 2) {
    gemmNT(wt, 0, jb, vt, rows[s] * jb, jb, x, c0 * m + rows[s], m, nc, rows[s + 1] - rows[s], jb, -1);
  }
}

/**
 * In-place Householder QR of the m x n matrix whose columns are the rows of `at` (m >= n),
 * blocked: each panel of NB columns is factored column by column, then its reflectors are applied
 * to the rest of the matrix at once in WY form, which runs at matrix-product speed.
 */
export function factor(at: Float64Array, m: number, n: number): Reflectors {
  const tau = new Float64Array(n);
  const segs: Int32Array[] = [];
  for (let j0 = 0; j0 < n; j0 += NB) {
    const jb = Math.min(NB, n - j0);
    for (let j = j0; j < j0 + jb; j++) {
      segs.push(makeReflector(at, m, j, tau));
      if (tau[j] !== 0) applyReflector(at, j, m, tau[j], segs[j], at, j + 1, j0 + jb);
    }
    if (j0 + jb < n) applyPanel(buildPanel(at, m, j0, jb, { tau, segs }), m, true, at, j0 + jb, n);
  }
  return { tau, segs };
}

/** R (n x n, row-major) from a factored `at`. */
export function extractR(at: Float64Array, m: number, n: number): Float64Array {
  const r = new Float64Array(n * n);
  for (let j = 0; j < n; j++) for (let i = 0; i <= j; i++) r[i * n + j] = at[j * m + i];
  return r;
}

/**
 * The explicit Q (m x n) of a factored `at`, returned transposed (n rows of length m) like the
 * input: Q = H_0 ... H_{n-1} [I; 0], accumulated backwards panel by panel, so a panel starting
 * at column j0 only touches columns >= j0.
 */
export function formQ(at: Float64Array, m: number, n: number, refl: Reflectors): Float64Array {
  const qt = new Float64Array(n * m);
  for (let c = 0; c < n; c++) qt[c * m + c] = 1;
  const last = Math.floor((n - 1) / NB) * NB;
  for (let j0 = last; j0 >= 0; j0 -= NB) {
    const jb = Math.min(NB, n - j0);
    applyPanel(buildPanel(at, m, j0, jb, refl), m, false, qt, j0, n);
  }
  return qt;
}

/** The reflectors' segments of a factored `at`, recomputed from the stored vectors (for a compact Q sent between tasks). */
export function reflectorsOf(at: Float64Array, m: number, n: number, tau: Float64Array): Reflectors {
  const segs: Int32Array[] = [];
  for (let j = 0; j < n; j++) segs.push(nonzeroSegments(at, j * m, j + 1, m));
  return { tau, segs };
}

/**
 * Q [W; 0] for the Q of a factored `at` without forming Q: `xt` holds the p columns of the m x p
 * matrix [W; 0] as rows of length m and is overwritten with those of the product. Costs about
 * 4 m n p flops, the same as multiplying by an explicit Q, and saves forming it.
 */
export function applyQ(at: Float64Array, m: number, n: number, refl: Reflectors, xt: Float64Array, p: number): void {
  const last = Math.floor((n - 1) / NB) * NB;
  for (let j0 = last; j0 >= 0; j0 -= NB) {
    applyPanel(buildPanel(at, m, j0, Math.min(NB, n - j0), refl), m, false, xt, 0, p);
  }
}
