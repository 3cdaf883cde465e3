/**
 * Bench and tests (bench/engine/overhead.ts; the gpuflow-cuda tfjs backend's tests): the addon with its CUDA entry points answered by the CPU
 * kernels, so a GPU worker's whole JavaScript path (cuda backend, device-resident store, 16 calls
 * in flight on libuv threads) runs on a machine without a GPU. On tiny chunks the kernels take a
 * few microseconds, and what a run costs is the engine's own per-task cost. Switched on by
 * GPUFLOW_BENCH_FAKE_CUDA=1 in native/index.ts; nothing else uses it, and a real GPU never sees it.
 *
 * "Device" buffers are host arrays in a map under ids, as the addon's pool hands out ids; a
 * program's output length and dtype are read back from its code (native/program-code.ts layout:
 * version, dtype, ndim, shape...).
 *
 * GPUFLOW_BENCH_FAKE_KERNEL_US=k adds a device: programs also take k microseconds each, one at a
 * time in submission order, as a GPU runs back-to-back kernels, without using a CPU (a thread that
 * sleeps). Kernel i ends at max(its submission, kernel i-1's end) + k on that thread's clock; a
 * late wake-up delays the news of an end, not the next kernel. So a run is device-bound, as on
 * the GPU, and the engine's cost shows only where it leaves the device idle.
 */
import { Worker } from 'node:worker_threads';
import type { FloatArray, NativeAddon } from './addon-types';
import { fakeTfCalls } from './fake-tf-ops';

/** The device thread: ids in, ids out when their kernel's time is over. */
const DEVICE_THREAD = `
const { parentPort } = require('node:worker_threads');
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const queue = [];
let free = 0;
let scheduled = false;
// One kernel a turn, so ids sent meanwhile are queued (and stamped) between kernels.
function step() {
  scheduled = false;
  const { id, k, at } = queue.shift();
  const end = Math.max(at, free) + k;
  free = end;
  for (let left = end - performance.now(); left > 0; left = end - performance.now()) Atomics.wait(sleeper, 0, 0, left);
  parentPort.postMessage(id);
  if (queue.length) schedule();
}
function schedule() {
  if (!scheduled) {
    scheduled = true;
    setImmediate(step);
  }
}
parentPort.on('message', ({ id, k }) => {
  queue.push({ id, k, at: performance.now() });
  schedule();
});
`;

/** The fake device: runs one kernel of `us` microseconds, after those submitted before it. */
function fakeDevice(): (us: number) => Promise<void> {
  let thread: Worker | null = null;
  const waiting = new Map<number, () => void>();
  let next = 0;
  return (us) =>
    new Promise<void>((resolve) => {
      if (!thread) {
        thread = new Worker(DEVICE_THREAD, { eval: true });
        thread.unref();
        thread.on('message', (id: number) => {
          waiting.get(id)?.();
          waiting.delete(id);
        });
      }
      const id = next++;
      waiting.set(id, resolve);
      thread.postMessage({ id, k: us / 1000 });
    });
}

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
  const device = fakeDevice();
  const run = async (code: Float64Array, inputs: Buf[], out: FloatArray) => {
    await real.runProgram(code, inputs, out, 1);
    // Read each call: the bench changes it between cases in its own process.
    const us = Number(process.env.GPUFLOW_BENCH_FAKE_KERNEL_US ?? 0);
    if (us > 0) await device(us);
  };
  const put = (b: Buf): number => {
    buffers.set(next, b);
    return next++;
  };
  // The dataframe device kernels (native/df.ts) have no CPU twin to answer them: left out, so a
  // fake GPU worker runs df ops with the js kernels (backend 'js (cuda: the addon lacks ...)'),
  // its messages, store and Arrow encoding the GPU worker's own (bench/engine/warm-run.ts).
  const { cudaDfFilter: _f, cudaDfGroupby: _g, cudaDfJoin: _j, cudaDfTimeseriesGroupby: _t, ...host } = real as NativeAddon & Record<string, unknown>;
  return {
    ...(host as NativeAddon),
    info: () => ({ ...real.info(), cuda: true, cudaReason: undefined, device: 'fake cuda (CPU kernels, GPUFLOW_BENCH_FAKE_CUDA)' }),
    cudaStatus: () => ({ cuda: true }),
    cudaRunProgram: (code, inputs, out) => run(code, inputs, out),
    cudaResidentUpload: (src) => Promise.resolve(put(src.slice())),
    async cudaResidentDownload(id, dst) {
      dst.set(get(id) as never);
    },
    cudaResidentFree: (id) => buffers.delete(id),
    async cudaResidentRunProgram(code, inputs, out) {
      const args = inputs.map((x) => (typeof x === 'number' ? get(x) : x));
      if (out) {
        await run(code, args, out);
        return -1;
      }
      // Reductions write float64 partials; an array output has the program's dtype.
      const o = outputOf(code);
      await run(code, args, o);
      return put(o);
    },
    // Matmul through the CPU kernel (one thread), so multi-GPU matmul graphs run on fake GPUs too.
    cudaMatmul: (a, b, c0, m, k, n, out) => real.matmul(a, b, c0, m, k, n, out, 1),
    async cudaResidentMatmul(a, b, c0, m, k, n) {
      const float = (id: number): FloatArray => {
        const x = get(id);
        if (x instanceof Int32Array) throw new TypeError(`fake cuda: matmul of int32 buffer ${id}`);
        return x;
      };
      const A = float(a);
      const out = A instanceof Float32Array ? new Float32Array(m * n) : new Float64Array(m * n);
      await real.matmul(A, float(b), c0 === null ? null : float(c0), m, k, n, out, 1);
      return put(out);
    },
    // The tfjs backend's kernels (gpuflow-cuda), in JavaScript over the same buffers.
    ...fakeTfCalls(get, put),
    cudaResidentStats: () => ({ blocks: buffers.size, bytes: [...buffers.values()].reduce((s, b) => s + b.byteLength, 0), pinnedBytes: 0 }),
  };
}
