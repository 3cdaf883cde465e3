/**
 * Task handlers of svd_randomized (main/engine/ops/arrays-randomized.ts). Everything is float64;
 * the steps are the js kernels of worker/kernels/js/linalg/randomized.ts split per row block,
 * with the products against A's blocks (sketch, power iterations, U) on the worker's matmul.
 */
import type { ChunkValue, NDArray } from '../../../common/arrays';
import { registerArrayOp } from '../../handlers';
import { gaussianTestMatrix, orthonormalize, svd, transpose } from '../js/linalg';
import { backendMatmul } from './backend-matmul';

function f64(v: ChunkValue | undefined, i: number, what: string): NDArray {
  if (v?.kind !== 'array') throw new Error(`${what}: input ${i} is ${v ? `a ${v.kind}` : 'missing'}, not an array`);
  const a = v.array;
  return a.data instanceof Float64Array ? a : { dtype: 'float64', shape: a.shape, data: Float64Array.from(a.data as ArrayLike<number>, Number) };
}

/** The first `cols` columns of a row-major 2-D array. */
function leadingCols(a: NDArray, cols: number): NDArray {
  const [r, c] = a.shape;
  const out = new Float64Array(r * cols);
  for (let i = 0; i < r; i++) out.set((a.data as Float64Array).subarray(i * c, i * c + cols), i * cols);
  return { dtype: 'float64', shape: [r, cols], data: out };
}

registerArrayOp('rs-sketch', async (params, inputs, ctx) => {
  const a = f64(inputs[0], 0, 'rs-sketch');
  const omega = gaussianTestMatrix(a.shape[1], params.k, params.seed);
  const r = await backendMatmul(ctx, a, omega);
  return { value: { kind: 'array', array: r.out }, backend: r.backend };
});

/** op(a) b with op = transpose when `ta`. */
registerArrayOp('rs-mm', async (params, inputs, ctx) => {
  const a = f64(inputs[0], 0, 'rs-mm');
  const b = f64(inputs[1], 1, 'rs-mm');
  const r = await backendMatmul(ctx, params.ta ? transpose(a) : a, b);
  return { value: { kind: 'array', array: r.out }, backend: r.backend };
});

registerArrayOp('rs-sum', async (params, inputs) => {
  const parts = inputs.map((v, i) => f64(v, i, 'rs-sum'));
  const acc = Float64Array.from(parts[0].data as Float64Array);
  for (const p of parts.slice(1)) {
    const d = p.data as Float64Array;
    for (let j = 0; j < acc.length; j++) acc[j] += d[j];
  }
  const sum: NDArray = { dtype: 'float64', shape: parts[0].shape, data: acc };
  if (params.then === 'orth') return { value: { kind: 'array', array: orthonormalize(sum) }, backend: 'js' };
  if (params.then !== 'svd') return { value: { kind: 'array', array: sum }, backend: 'js' };
  const rank = params.rank;
  const r = svd(sum); // B is k x n with k <= n: u k x k, s k, vt k x n
  const n = r.vt.shape[1];
  return {
    value: {
      kind: 'arrays',
      arrays: {
        u: leadingCols(r.u, rank),
        s: { dtype: 'float64', shape: [rank], data: (r.s.data as Float64Array).slice(0, rank) },
        vt: { dtype: 'float64', shape: [rank, n], data: (r.vt.data as Float64Array).slice(0, rank * n) },
      },
    },
    backend: 'js',
  };
});

registerArrayOp('rs-u', async (_params, inputs, ctx) => {
  const q = f64(inputs[0], 0, 'rs-u');
  const b = inputs[1];
  if (b?.kind !== 'arrays' || !b.arrays.u) throw new Error('rs-u: input 1 is not the SVD bundle of B');
  const r = await backendMatmul(ctx, q, b.arrays.u);
  return { value: { kind: 'array', array: r.out }, backend: r.backend };
});
