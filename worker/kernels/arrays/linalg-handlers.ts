/**
 * Task handlers of the linear-algebra nodes (main/engine/ops/arrays-linalg.ts). Matmul uses the
 * worker's fastest backend that has one (cuBLAS, BLAS / blocked C++), else the js kernels.
 */
import type { ChunkValue, NDArray } from '../../../common/arrays';
import { registerHandler, type HandlerContext } from '../../handlers';
import { combineFactor, matmul, qrBlock, qrBlockFactor, splitRows, stackR, svdOfR } from '../js/linalg';

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

async function mm(ctx: HandlerContext, a: NDArray, b: NDArray, c0?: NDArray): Promise<{ out: NDArray; backend: string }> {
  const be = ctx.backends.find((x) => x.matmul);
  if (be?.matmul && a.dtype === b.dtype && (a.dtype === 'float64' || a.dtype === 'float32')) return { out: await be.matmul(a, b, c0), backend: be.name };
  return { out: matmul(a, b, c0), backend: 'js' };
}

registerHandler('array-op', 'matmul', async (params, inputs, ctx) => {
  const k = params.k as number;
  let acc: NDArray | undefined;
  let backend = 'js';
  for (let l = 0; l < k; l++) {
    const r = await mm(ctx, arrayAt(inputs, l, 'matmul'), arrayAt(inputs, k + l, 'matmul'), acc);
    acc = r.out;
    backend = r.backend;
  }
  if (!acc) throw new Error('matmul: no blocks to contract');
  return { value: { kind: 'array', array: acc }, backend };
});

registerHandler('array-op', 'qr-block', async (_params, inputs) => {
  const { factor, r } = qrBlockFactor(arrayAt(inputs, 0, 'qr-block'));
  return { value: { kind: 'arrays', arrays: { factor, r } }, backend: 'js' };
});

registerHandler('array-op', 'qr-top', async (params, inputs) => {
  const rs = inputs.map((_, i) => bundleAt(inputs, i, 'qr-top').r);
  const { q, r } = qrBlock(stackR(rs));
  const arrays: Record<string, NDArray> = { q2: q, r };
  if (params.svd === true) {
    const s = svdOfR(r);
    arrays.u = s.u;
    arrays.s = s.s;
    arrays.vt = s.vt;
  }
  return { value: { kind: 'arrays', arrays }, backend: 'js' };
});

registerHandler('array-op', 'qr-combine', async (params, inputs) => {
  const block = bundleAt(inputs, 0, 'qr-combine');
  const top = bundleAt(inputs, 1, 'qr-combine');
  const n = top.r.shape[0];
  const k = top.q2.shape[0] / n;
  const q2 = splitRows(top.q2, new Array<number>(k).fill(n))[params.index as number];
  const out = combineFactor(block.factor, q2, params.svd === true ? top.u : undefined);
  return { value: { kind: 'array', array: out }, backend: 'js' };
});

registerHandler('array-op', 'pick', async (params, inputs) => {
  const name = params.name as string;
  const a = bundleAt(inputs, 0, 'pick')[name];
  if (!a) throw new Error(`pick: no array '${name}' in the input`);
  return { value: { kind: 'array', array: a }, backend: 'js' };
});
