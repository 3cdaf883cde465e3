/**
 * Task handlers of the linear-algebra nodes (main/engine/ops/arrays-linalg.ts). Matmul uses the
 * worker's fastest backend that has one (cuBLAS, BLAS / blocked C++), else the js kernels. TSQR's
 * per-block QR of a float64 block does too (cuSOLVER, LAPACK / C++), giving an explicit Q that the
 * combine step multiplies through matmul; every backend makes diag(R) >= 0, as js does, so the
 * answer does not depend on which worker ran a block; the stacked QR and the SVD of R (qr-top)
 * likewise. float32 stays in js, which factors it in float64 (a float32 LAPACK would lose digits
 * the js path keeps).
 */
import type { ChunkValue, NDArray } from '../../../common/arrays';
import { registerArrayOp, type HandlerResult } from '../../handlers';
import { backendMatmul } from './backend-matmul';
import { combineFactor, qr as jsQr, qrBlock, qrBlockFactor, splitRows, stackR, svd as jsSvd, svdOfR } from '../js/linalg';
import type { Mat } from '../js/linalg/dense';
import { fixSigns } from '../js/linalg/svd';

function arrayAt(inputs: ChunkValue[], i: number, what: string): NDArray {
  const v = inputs[i];
  if (v?.kind !== 'array') throw new Error(`${what}: input ${i} is ${v ? `a ${v.kind}` : 'missing'}, not an array`);
  return v.array;
}

function bundleAt(inputs: ChunkValue[], i: number, what: string): Record<string, NDArray> {
  const v = inputs[i];
  if (v?.kind !== 'arrays') throw new Error(`${what}: input ${i} is ${v ? `a ${v.kind}` : 'missing'}, not a bundle of arrays`);
  return v.arrays;
}

/** A float64 2-d array as the js kernels' working matrix, sharing its data (fixSigns edits in place). */
function matOf(a: NDArray): Mat {
  if (!(a.data instanceof Float64Array) || a.shape.length !== 2) throw new Error(`expected a float64 matrix, got ${a.dtype}[${a.shape.join(', ')}]`);
  return { rows: a.shape[0], cols: a.shape[1], data: a.data };
}

registerArrayOp('matmul', async ({ k }, inputs, ctx) => {
  let acc: NDArray | undefined;
  let backend = 'js';
  for (let l = 0; l < k; l++) {
    const r = await backendMatmul(ctx, arrayAt(inputs, l, 'matmul'), arrayAt(inputs, k + l, 'matmul'), acc);
    acc = r.out;
    backend = r.backend;
  }
  if (!acc) throw new Error('matmul: no blocks to contract');
  return { value: { kind: 'array', array: acc }, backend };
});

registerArrayOp('qr-block', async (_params, inputs, ctx): Promise<HandlerResult> => {
  const a = arrayAt(inputs, 0, 'qr-block');
  const be = ctx.backends.find((x) => x.qr);
  // A wide block goes to js, whose error says how to re-chunk.
  if (be?.qr && a.dtype === 'float64' && a.shape.length === 2 && a.shape[0] >= a.shape[1]) {
    const { q, r } = await be.qr(a);
    return { value: { kind: 'arrays', arrays: { q, r } }, backend: be.name };
  }
  const { factor, r } = qrBlockFactor(a);
  return { value: { kind: 'arrays', arrays: { factor, r } }, backend: 'js' };
});

registerArrayOp('qr-top', async ({ svd }, inputs, ctx) => {
  const rs = inputs.map((_, i) => bundleAt(inputs, i, 'qr-top').r);
  const stacked = stackR(rs);
  const be = stacked.dtype === 'float64' ? ctx.backends.find((x) => x.qr && x.svd) : undefined;
  const { q, r } = be?.qr ? await be.qr(stacked) : qrBlock(stacked);
  const arrays: Record<string, NDArray> = { q2: q, r };
  if (svd) {
    const s = be?.svd ? await be.svd(r) : svdOfR(r);
    // cuSOLVER leaves the signs of (u_k, v_k) as they come: the js rule makes every backend agree.
    if (be) fixSigns(matOf(s.u), matOf(s.vt));
    arrays.u = s.u;
    arrays.s = s.s;
    arrays.vt = s.vt;
  }
  return { value: { kind: 'arrays', arrays }, backend: be?.name ?? 'js' };
});

registerArrayOp('qr-combine', async ({ index, svd }, inputs, ctx) => {
  const block = bundleAt(inputs, 0, 'qr-combine');
  const top = bundleAt(inputs, 1, 'qr-combine');
  const n = top.r.shape[0];
  const k = top.q2.shape[0] / n;
  const q2 = splitRows(top.q2, new Array<number>(k).fill(n))[index];
  const right = svd ? top.u : undefined;
  if (block.q) {
    // A block a backend factored: Q_i = Q1_i (Q2_i U_r), the small product first.
    const inner = right ? (await backendMatmul(ctx, q2, right)).out : q2;
    const r = await backendMatmul(ctx, block.q, inner);
    return { value: { kind: 'array', array: r.out }, backend: r.backend };
  }
  if (!block.factor) throw new Error('qr-combine: the block bundle has neither q nor factor');
  const out = combineFactor(block.factor, q2, right);
  return { value: { kind: 'array', array: out }, backend: 'js' };
});

/** Row blocks (whole columns) stacked into one float64 array. */
export function stackRows(blocks: NDArray[], what: string): NDArray {
  const n = blocks[0]?.shape[1];
  if (n === undefined || blocks.some((b) => b.shape.length !== 2 || b.shape[1] !== n)) throw new Error(`${what}: expects row blocks of one width, got ${blocks.map((b) => `[${b.shape.join(', ')}]`).join(' ')}`);
  const m = blocks.reduce((s, b) => s + b.shape[0], 0);
  const data = new Float64Array(m * n);
  let at = 0;
  for (const b of blocks) {
    if (b.data instanceof Float64Array) data.set(b.data, at);
    else for (let i = 0; i < b.data.length; i++) data[at + i] = Number(b.data[i]);
    at += b.data.length;
  }
  return { dtype: 'float64', shape: [m, n], data };
}

// The one-task qr / svd (main/engine/ops/arrays-linalg.ts oneTask) on host values: the blocks
// stacked, then the backend's QR / SVD (with the js sign rule) or js. On a cuda worker with
// device residency it runs on the device instead (worker/resident/linalg.ts).
registerArrayOp('factor-whole', async ({ svd }, inputs, ctx): Promise<HandlerResult> => {
  const a = stackRows(inputs.map((_, i) => arrayAt(inputs, i, 'factor-whole')), 'factor-whole');
  const be = ctx.backends.find((x) => x.qr && x.svd);
  if (svd) {
    const s = be?.svd ? await be.svd(a) : jsSvd(a);
    if (be) fixSigns(matOf(s.u), matOf(s.vt));
    return { value: { kind: 'arrays', arrays: { u: s.u, s: s.s, vt: s.vt } }, backend: be?.name ?? 'js' };
  }
  const { q, r } = be?.qr ? await be.qr(a) : jsQr(a);
  return { value: { kind: 'arrays', arrays: { q, r } }, backend: be?.name ?? 'js' };
});

registerArrayOp('pick', async ({ name }, inputs) => {
  const a = bundleAt(inputs, 0, 'pick')[name];
  if (!a) throw new Error(`pick: no array '${name}' in the input`);
  return { value: { kind: 'array', array: a }, backend: 'js' };
});
