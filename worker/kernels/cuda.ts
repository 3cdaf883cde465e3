/**
 * The `cuda` backend: the addon's CUDA kernels on the one GPU this worker sees
 * (CUDA_VISIBLE_DEVICES). Programs are fused into one pass (generate + elementwise + slice +
 * reduction partial) that never materialises a chunk a reduction consumes; matmul goes through
 * cuBLAS and qr / svd through cuSOLVER, both dlopen'ed by the addon at first use.
 */
import type { ChunkProgram, ChunkValue, NDArray } from '../../common/arrays';
import { sizeOf } from '../../common/arrays';
import { allocLike, asFloat, matrixDims, prepareCall, resultOf } from '../../native/chunk-call';
import { loadNative } from '../../native/index';
import { unsupportedReason } from '../../native/program-code';
import type { ArrayBackend } from './backend';

// The device kernels index the output with 32-bit integers.
const MAX_ELEMENTS = 2 ** 31 - 1;

export function createCudaBackend(): ArrayBackend | { unavailable: string } {
  const loaded = loadNative();
  if ('unavailable' in loaded) return { unavailable: loaded.unavailable };
  const addon = loaded.addon;
  const info = addon.info();
  if (!info.cuda) return { unavailable: info.cudaReason ?? 'CUDA is not available' };
  return {
    name: 'cuda',
    supportsProgram: (program: ChunkProgram) => unsupportedReason(program) === null && sizeOf(program.shape) <= MAX_ELEMENTS,
    async runProgram(program: ChunkProgram, inputs: ChunkValue[]): Promise<ChunkValue> {
      const call = prepareCall(program, inputs);
      await addon.cudaRunProgram(call.code, call.inputs, call.out);
      return resultOf(program, call.out);
    },
    async matmul(a: NDArray, b: NDArray, c0?: NDArray): Promise<NDArray> {
      const [m, k] = matrixDims(a, 'matmul a');
      const [k2, n] = matrixDims(b, 'matmul b');
      if (k2 !== k || b.dtype !== a.dtype) throw new TypeError(`matmul: cannot multiply ${a.dtype}[${m}, ${k}] by ${b.dtype}[${k2}, ${n}]`);
      const dtype = a.dtype as 'float64' | 'float32';
      const out = allocLike(dtype, m * n);
      await addon.cudaMatmul(asFloat(a), asFloat(b), c0 ? asFloat(c0) : null, m, k, n, out);
      return { dtype, shape: [m, n], data: out };
    },
    async qr(a: NDArray) {
      const [m, n] = matrixDims(a, 'qr a');
      const dtype = a.dtype as 'float64' | 'float32';
      const q = allocLike(dtype, m * n);
      const r = allocLike(dtype, n * n);
      await addon.cudaQr(asFloat(a), m, n, q, r);
      return { q: { dtype, shape: [m, n], data: q }, r: { dtype, shape: [n, n], data: r } };
    },
    async svd(a: NDArray) {
      const [m, n] = matrixDims(a, 'svd a');
      const dtype = a.dtype as 'float64' | 'float32';
      const p = Math.min(m, n);
      const u = allocLike(dtype, m * p);
      const s = allocLike(dtype, p);
      const vt = allocLike(dtype, p * n);
      await addon.cudaSvd(asFloat(a), m, n, u, s, vt);
      return { u: { dtype, shape: [m, p], data: u }, s: { dtype, shape: [p], data: s }, vt: { dtype, shape: [p, n], data: vt } };
    },
  };
}
