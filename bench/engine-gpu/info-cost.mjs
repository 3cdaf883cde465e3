// On the GPU machine, in a fresh process: what a GPU worker's start pays on the JS thread after
// the warm-up's context, for the addon's info() (CUDA status, device, CPU BLAS + LAPACK dlopen)
// against cudaStatus() (CUDA status alone). Which is asked first is argv[2] ('info' or 'status'):
// the second call finds the device state already made. One JSON line.
import { createRequire } from 'node:module';
import path from 'node:path';

const first = process.argv[2] === 'info' ? 'info' : 'status';
const addon = createRequire(import.meta.url)(path.resolve(process.env.GPUFLOW_NATIVE_DIR ?? 'native/build', 'gpuflow.node'));
const t0 = performance.now();
await addon.cudaWarmContext();
const t1 = performance.now();
const timed = (f) => {
  const s = performance.now();
  f();
  return performance.now() - s;
};
const calls = { status: () => addon.cudaStatus(), info: () => addon.info() };
const second = first === 'info' ? 'status' : 'info';
const a = timed(calls[first]);
const b = timed(calls[second]);
const { blas, lapack } = addon.info();
console.log(JSON.stringify({ kind: 'info-cost', first, contextMs: t1 - t0, [`${first}Ms`]: a, [`${second}Ms`]: b, blas, lapack }));
