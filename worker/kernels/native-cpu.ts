/**
 * The `native-cpu` backend: the addon's multithreaded C++ kernels on a pool of `threads` threads
 * (the worker's cores). Programs run off the JS thread; matmul uses a system BLAS when the addon
 * found one, else its own blocked kernel; qr / svd are the TSQR building blocks.
 */
import type { ChunkProgram, ChunkValue, NDArray } from '../../common/arrays';
import { allocLike, asFloat, matrixDims, prepareCall, resultOf } from '../../native/chunk-call';
import { loadNative } from '../../native/index';
import { unsupportedReason } from '../../native/program-code';
import type { ArrayBackend } from './backend';

export function createNativeCpuBackend(threads: number): ArrayBackend | { unavailable: string } {
  if (!Number.isInteger(threads) || threads < 1 || threads > 1024) throw new RangeError(`native-cpu: threads must be an integer in [1, 1024], got ${threads}`);
  const loaded = loadNative();
  if ('unavailable' in loaded) return { unavailable: loaded.unavailable };
  const addon = loaded.addon;
  return {
    name: 'native-cpu',
    supportsProgram: (program: ChunkProgram) => unsupportedReason(program) === null,
    async runProgram(program: ChunkProgram, inputs: ChunkValue[]): Promise<ChunkValue> {
      const call = prepareCall(program, inputs);
      await addon.runProgram(call.code, call.inputs, call.out, threads);
      return resultOf(program, call.out);
    },
    async matmul(a: NDArray, b: NDArray, c0?: NDArray): Promise<NDArray> {
      const [m, k] = matrixDims(a, 'matmul a');
      const [k2, n] = matrixDims(b, 'matmul b');
      if (k2 !== k || b.dtype !== a.dtype) throw new TypeError(`matmul: cannot multiply ${a.dtype}[${m}, ${k}] by ${b.dtype}[${k2}, ${n}]`);
      const dtype = a.dtype as 'float64' | 'float32';
      const out = allocLike(dtype, m * n);
      await addon.matmul(asFloat(a), asFloat(b), c0 ? asFloat(c0) : null, m, k, n, out, threads);
      return { dtype, shape: [m, n], data: out };
    },
    async qr(a: NDArray) {
      const [m, n] = matrixDims(a, 'qr a');
      const dtype = a.dtype as 'float64' | 'float32';
      const q = allocLike(dtype, m * n);
      const r = allocLike(dtype, n * n);
      await addon.qr(asFloat(a), m, n, q, r, threads);
      return { q: { dtype, shape: [m, n], data: q }, r: { dtype, shape: [n, n], data: r } };
    },
    async svd(a: NDArray) {
      const [m, n] = matrixDims(a, 'svd a');
      const dtype = a.dtype as 'float64' | 'float32';
      const p = Math.min(m, n);
      const u = allocLike(dtype, m * p);
      const s = allocLike(dtype, p);
      const vt = allocLike(dtype, p * n);
      await addon.svd(asFloat(a), m, n, u, s, vt, threads);
      return { u: { dtype, shape: [m, p], data: u }, s: { dtype, shape: [p], data: s }, vt: { dtype, shape: [p, n], data: vt } };
    },
  };
}
