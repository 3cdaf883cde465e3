/**
 * The `native-cpu` backend: the addon's multithreaded C++ kernels on a pool of `threads` threads
 * (the worker's cores). Programs run off the JS thread; matmul uses a system BLAS when the addon
 * found one, else its own blocked kernel; qr / svd are the TSQR building blocks.
 */
import type { ChunkProgram, ChunkValue } from '../../common/arrays';
import { linalgMethods, prepareCall, resultOf } from '../../native/chunk-call';
import { loadNative } from '../../native/index';
import { unsupportedReason } from '../../native/program-code';
import type { ArrayBackend } from './backend';
import { runFolding } from './host-fold';

export function createNativeCpuBackend(threads: number): ArrayBackend | { unavailable: string } {
  if (!Number.isInteger(threads) || threads < 1 || threads > 1024) throw new RangeError(`native-cpu: threads must be an integer in [1, 1024], got ${threads}`);
  const loaded = loadNative();
  if ('unavailable' in loaded) return { unavailable: loaded.unavailable };
  const addon = loaded.addon;
  // The addon's programs take negative coefficients (info().negativeStrides is always true). Not
  // info(): its CUDA part would initialise the driver in every CPU worker, and its BLAS lookup
  // dlopens OpenBLAS, which starts a thread per core (about 0.1 s of a start on 16 cores); the
  // BLAS is opened at the first matmul instead.
  const features = { negativeStrides: true };
  return {
    name: 'native-cpu',
    supportsProgram: (program: ChunkProgram) => unsupportedReason(program, features) === null,
    runProgram: (program: ChunkProgram, inputs: ChunkValue[]): Promise<ChunkValue> =>
      runFolding(program, async (p) => {
        const call = prepareCall(p, inputs);
        await addon.runProgram(call.code, call.inputs, call.out, threads);
        return resultOf(p, call.out);
      }),
    ...linalgMethods({
      matmul: (a, b, c0, m, k, n, out) => addon.matmul(a, b, c0, m, k, n, out, threads),
      qr: (a, m, n, q, r) => addon.qr(a, m, n, q, r, threads),
      svd: (a, m, n, u, s, vt) => addon.svd(a, m, n, u, s, vt, threads),
    }),
  };
}
