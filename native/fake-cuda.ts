/**
 * Bench only (bench/engine/overhead.ts): the addon with its CUDA entry points answered by the CPU
 * kernels, so a GPU worker's whole JavaScript path (cuda backend, device-resident store, 16 calls
 * in flight on libuv threads) runs on a machine without a GPU. On tiny chunks the kernels take a
 * few microseconds, and what a run costs is the engine's own per-task cost. Switched on by
 * GPUFLOW_BENCH_FAKE_CUDA=1 in native/index.ts; nothing else uses it, and a real GPU never sees it.
 *
 * "Device" buffers are host arrays in a map under ids, as the addon's pool hands out ids; a
 * program's output length and dtype are read back from its code (native/program-code.ts layout:
 * version, dtype, ndim, shape...).
 */
import type { FloatArray, NativeAddon } from './index';

type Buf = FloatArray | Int32Array;

function outputOf(code: Float64Array): Float64Array | Float32Array {
  const nd = code[2];
  let n = 1;
  for (let d = 0; d < nd; d++) n *= code[3 + d];
  return code[1] === 1 ? new Float32Array(n) : new Float64Array(n);
}

export function fakeCudaAddon(real: NativeAddon): NativeAddon {
  const buffers = new Map<number, Buf>();
  let next = 1;
  const get = (id: number): Buf => {
    const b = buffers.get(id);
    if (!b) throw new RangeError(`fake cuda: no buffer ${id}`);
    return b;
  };
  const put = (b: Buf): number => {
    buffers.set(next, b);
    return next++;
  };
  return {
    ...real,
    info: () => ({ ...real.info(), cuda: true, cudaReason: undefined, device: 'fake cuda (CPU kernels, GPUFLOW_BENCH_FAKE_CUDA)' }),
    cudaRunProgram: (code, inputs, out) => real.runProgram(code, inputs, out, 1),
    cudaResidentUpload: (src) => Promise.resolve(put(src.slice())),
    async cudaResidentDownload(id, dst) {
      dst.set(get(id) as never);
    },
    cudaResidentFree: (id) => buffers.delete(id),
    async cudaResidentRunProgram(code, inputs, out) {
      const args = inputs.map((x) => (typeof x === 'number' ? get(x) : x));
      if (out) {
        await real.runProgram(code, args, out, 1);
        return -1;
      }
      // Reductions write float64 partials; an array output has the program's dtype.
      const o = outputOf(code);
      await real.runProgram(code, args, o, 1);
      return put(o);
    },
    cudaResidentMatmul: () => Promise.reject(new Error('fake cuda: no matmul (bench of fused programs only)')),
    cudaResidentStats: () => ({ blocks: buffers.size, bytes: [...buffers.values()].reduce((s, b) => s + b.byteLength, 0), pinnedBytes: 0 }),
  };
}
