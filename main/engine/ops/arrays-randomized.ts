/**
 * svd_randomized: truncated SVD of a large m x n array (Halko, Martinsson & Tropp 2011,
 * algorithms 4.4 and 5.1) as a task graph over row blocks A_i (all columns), k = rank + oversample:
 *
 *   sketch(i)   Y_i = A_i Ω               Ω (n x k) regenerated from the seed inside each task
 *   TSQR(Y)     Q_i                       the qr-block / qr-top / qr-combine tasks of the qr node
 *   power iteration, power_iters times:
 *     atq(i)    Z_i = A_iᵀ Q_i            then Z = Σ Z_i in a small tree, orthonormalised at its root
 *     aq(i)     Y_i = A_i Z               then TSQR(Y) again
 *   qta(i)      B_i = Q_iᵀ A_i            then B = Σ B_i in a tree; its root takes the SVD of B (k x n)
 *   u(i)        U_i = Q_i U_b             truncated to rank; s and vt are picked from the root
 *
 * Only k-column panels and n x k / k x n matrices move between workers; A's blocks stay where
 * they are. The kernels are the js steps of worker/kernels/js/linalg/randomized.ts, so the
 * result is the same function of (A, rank, oversample, power_iters, seed) for any chunking.
 * Computed and returned in float64.
 */
import { arrayOpSpec } from '../../../common/array-op-params';
import { sizeOf } from '../../../common/arrays';
import { fromKeys, materialize } from '../compile/array-lower';
import { axisChunks } from '../compile/chunks';
import { rechunk, sameChunks } from '../compile/rechunk';
import { arrayInput } from './arrays-core';
import { tsqrRowChunks } from './arrays-linalg';
import type { BuildContext, OpDef } from './types';

const SPLIT = 8;

function intParam(ctx: BuildContext, name: string, dflt: number, min: number): number {
  const v = ctx.params[name] ?? dflt;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) return ctx.fail(`params.${name}`, `must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return v;
}

/** Emits a TSQR of the k-column panels `ys` and returns the Q panel keys. */
function tsqrQ(ctx: BuildContext, ys: string[], rows: number[], k: number, round: string): string[] {
  const factors = ys.map((y, i) => {
    const key = ctx.key(`${round}-qr-block`, [i]);
    const bytes = (rows[i] + 2) * k * 8 + k * k * 8;
    ctx.emit({ key, deps: [y], spec: arrayOpSpec('qr-block', {}), resource: 'any', op: 'qr-block', outBytes: bytes, workBytes: 2 * bytes });
    return key;
  });
  const top = ctx.key(`${round}-qr-top`);
  const topBytes = (ys.length * k * k + 2 * k * k) * 8;
  ctx.emit({ key: top, deps: factors, spec: arrayOpSpec('qr-top', { svd: false }), resource: 'any', op: 'qr-top', outBytes: topBytes, workBytes: 2 * topBytes });
  return factors.map((f, i) => {
    const key = ctx.key(`${round}-q`, [i]);
    const bytes = rows[i] * k * 8;
    ctx.emit({ key, deps: [f, top], spec: arrayOpSpec('qr-combine', { index: i, svd: false }), resource: 'any', op: 'qr-q', outBytes: bytes, workBytes: 3 * bytes });
    return key;
  });
}

/** Σ of same-shape partials in a tree of fan-in SPLIT; the root also applies `then`. Always emits a root. */
function sumTree(ctx: BuildContext, keys: string[], name: string, bytes: number, then: 'orth' | 'svd', rank: number): string {
  let level = keys;
  let depth = 0;
  for (;;) {
    const root = level.length <= SPLIT;
    const next: string[] = [];
    for (let i = 0; i < level.length; i += SPLIT) {
      const group = level.slice(i, i + SPLIT);
      const key = root ? ctx.key(`${name}-${then}`) : ctx.key(`${name}-sum${depth}`, [i / SPLIT]);
      ctx.emit({ key, deps: group, spec: arrayOpSpec('rs-sum', { then: root ? then : 'none', rank }), resource: 'any', op: root ? `rs-${then}` : 'rs-sum', outBytes: bytes, workBytes: bytes * (group.length + 2) });
      next.push(key);
    }
    if (root) return next[0];
    level = next;
    depth++;
  }
}

const svdRandomized: OpDef = {
  deviceLibraries: true,
  spec: {
    op: 'svd_randomized',
    label: 'SVD (randomized, truncated)',
    category: 'arrays',
    doc: 'Top-rank SVD of a large 2-D array by randomized range finding (Halko et al.): a seeded Gaussian sketch, TSQR, power iterations, and the SVD of the small projection. Outputs u (m x rank), s (rank), vt (rank x n), float64.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [
      { name: 'u', type: 'array' },
      { name: 's', type: 'array' },
      { name: 'vt', type: 'array' },
    ],
    params: [
      { name: 'rank', kind: 'number', integer: true, min: 1, required: true, doc: 'singular triplets wanted' },
      { name: 'oversample', kind: 'number', integer: true, min: 0, default: 10, doc: 'extra sketch columns (5 to 10 is usual)' },
      { name: 'power_iters', kind: 'number', integer: true, min: 0, default: 2, doc: 'subspace iterations; sharpen slowly decaying spectra' },
      { name: 'seed', kind: 'number', integer: true, min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 },
    ],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    if (x.shape.length !== 2) ctx.fail('inputs.x', `expects a 2-D array, got shape (${x.shape.join(', ')})`);
    const [m, n] = x.shape;
    const rank = intParam(ctx, 'rank', 0, 1);
    if (rank > Math.min(m, n)) ctx.fail('params.rank', `must be at most min(m, n) = ${Math.min(m, n)} for shape (${m}, ${n}), got ${rank}`);
    const oversample = intParam(ctx, 'oversample', 10, 0);
    const iters = intParam(ctx, 'power_iters', 2, 0);
    const seed = intParam(ctx, 'seed', 0, 0);
    const k = Math.min(rank + oversample, m, n);
    // Row blocks with all columns, each with at least k rows (TSQR of the k-column panels needs it).
    const rows = tsqrRowChunks(x.chunks[0].every((r) => r >= k) ? x.chunks[0] : axisChunks(m, Math.max(k, x.chunks[0][0])), k);
    const want = [rows, [n]];
    const a = materialize(sameChunks(x.chunks, want) ? x : rechunk(x, want, ctx, 'rows'), ctx, 'a');
    const aKeys = rows.map((_, i) => a.block([i, 0]).deps[0]);
    const panel = (i: number) => rows[i] * k * 8;
    const mm = (name: string, deps: string[], i: number, ta: boolean, out: number) => {
      const key = ctx.key(name, [i]);
      ctx.emit({ key, deps, spec: arrayOpSpec('rs-mm', { ta }), resource: 'any', op: `rs-${name.replace(/^p\d+-/, '')}`, outBytes: out, workBytes: out + rows[i] * n * 8 });
      return key;
    };

    const ys = aKeys.map((ak, i) => {
      const key = ctx.key('sketch', [i]);
      ctx.emit({ key, deps: [ak], spec: arrayOpSpec('rs-sketch', { k, seed }), resource: 'any', op: 'rs-sketch', outBytes: panel(i), workBytes: panel(i) + n * k * 8 + rows[i] * n * 8 });
      return key;
    });
    let q = tsqrQ(ctx, ys, rows, k, 'y0');
    for (let it = 1; it <= iters; it++) {
      const zs = aKeys.map((ak, i) => mm(`p${it}-atq`, [ak, q[i]], i, true, n * k * 8));
      const z = sumTree(ctx, zs, `p${it}-z`, n * k * 8, 'orth', rank);
      q = tsqrQ(ctx, aKeys.map((ak, i) => mm(`p${it}-aq`, [ak, z], i, false, panel(i))), rows, k, `y${it}`);
    }
    const bs = aKeys.map((ak, i) => mm('qta', [q[i], ak], i, true, k * n * 8));
    const root = sumTree(ctx, bs, 'b', k * n * 8, 'svd', rank);
    const uKeys = q.map((qk, i) => {
      const key = ctx.key('u', [i, 0]);
      ctx.emit({ key, deps: [qk, root], spec: arrayOpSpec('rs-u', {}), resource: 'any', op: 'rs-u', outBytes: rows[i] * rank * 8, workBytes: panel(i) + rows[i] * rank * 8 });
      return key;
    });
    const pick = (name: string, shape: number[]) => {
      const key = ctx.key(`pick-${name}`);
      ctx.emit({ key, deps: [root], spec: arrayOpSpec('pick', { name }), resource: 'any', op: name, outBytes: sizeOf(shape) * 8, workBytes: sizeOf(shape) * 8 });
      return fromKeys(shape, shape.map((s) => [s]), 'float64', [key], ctx.nodeId, [ctx.nodeId]);
    };
    return {
      u: fromKeys([m, rank], [rows, [rank]], 'float64', uKeys, ctx.nodeId, [ctx.nodeId]),
      s: pick('s', [rank]),
      vt: pick('vt', [rank, n]),
    };
  },
};

export const RANDOMIZED_ARRAY_OPS: OpDef[] = [svdRandomized];
