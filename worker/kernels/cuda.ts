/**
 * The `cuda` backend: the addon's CUDA kernels on the one GPU this worker sees
 * (CUDA_VISIBLE_DEVICES). Programs are fused into one pass (generate + elementwise + slice +
 * reduction partial) that never materialises a chunk a reduction consumes; matmul goes through
 * cuBLAS and qr / svd through cuSOLVER, both dlopen'ed by the addon at first use. A worker makes
 * it with `createWarmCudaBackend`: the context has been made on a libuv thread since the worker
 * started (worker/cuda-warmup.ts), and cudaStatus() finds it instead of making it on the JS thread;
 * the cuBLAS / cuSOLVER handles are made after it in the background, and matmul, qr and svd
 * wait for them (`librariesReady`).
 */
import type { ChunkProgram, ChunkValue } from '../../common/arrays';
import { sizeOf } from '../../common/arrays';
import { linalgMethods, prepareCall, resultOf } from '../../native/chunk-call';
import { loadNative } from '../../native/index';
import { unsupportedReason } from '../../native/program-code';
import { cudaWarmup, librariesReady } from '../cuda-warmup';
import type { ArrayBackend } from './backend';
import { runFolding } from './host-fold';

// The device kernels index the output with 32-bit integers.
const MAX_ELEMENTS = 2 ** 31 - 1;

export function createCudaBackend(): ArrayBackend | { unavailable: string } {
  const loaded = loadNative();
  if ('unavailable' in loaded) return { unavailable: loaded.unavailable };
  const addon = loaded.addon;
  // Not info(): it also dlopens the CPU BLAS and LAPACK, which a GPU worker's start waited for.
  const status = addon.cudaStatus();
  if (!status.cuda) return { unavailable: status.cudaReason ?? 'CUDA is not available' };
  // The addon's programs take negative coefficients (info().negativeStrides is always true).
  const features = { negativeStrides: true };
  return {
    name: 'cuda',
    supportsProgram: (program: ChunkProgram) => unsupportedReason(program, features) === null && sizeOf(program.shape) <= MAX_ELEMENTS,
    runProgram: (program: ChunkProgram, inputs: ChunkValue[]): Promise<ChunkValue> =>
      runFolding(program, async (p) => {
        const call = prepareCall(p, inputs);
        await addon.cudaRunProgram(call.code, call.inputs, call.out);
        return resultOf(p, call.out);
      }),
    ...linalgMethods({
      matmul: (a, b, c0, m, k, n, out) => librariesReady().then(() => addon.cudaMatmul(a, b, c0, m, k, n, out)),
      qr: (a, m, n, q, r) => librariesReady().then(() => addon.cudaQr(a, m, n, q, r)),
      svd: (a, m, n, u, s, vt) => librariesReady().then(() => addon.cudaSvd(a, m, n, u, s, vt)),
    }),
  };
}

/** The backend once the warm-up's context (worker/cuda-warmup.ts, started here if it was not) is made. */
export async function createWarmCudaBackend(): Promise<ArrayBackend | { unavailable: string }> {
  await cudaWarmup();
  return createCudaBackend();
}
