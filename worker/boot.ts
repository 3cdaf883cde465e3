/**
 * The worker process's entry: as small as a module can be, so that a GPU worker starts making its
 * CUDA context (worker/cuda-warmup.ts, which loads only native/index.ts and the trace) before the
 * rest of the worker loads. An ES module's whole static import graph is loaded and evaluated
 * before its own body runs, so a warm-up imported first by worker/main.ts still waited for all of
 * it (about 0.16 s on the GPU machine); here the rest comes through a dynamic import, after the
 * warm-up is under way on a libuv thread. bin/build-bundles.mjs, electron.vite.config.ts and
 * main/cluster/worker-entry.ts (tsx) all start workers here.
 */
import { traceStart } from '../common/start-trace';
import { cudaWarmup } from './cuda-warmup';

traceStart('worker-boot');
/** A GPU worker's thread idles while its context is made: V8 learns the per-task code then (worker/jit-warmup.ts). */
async function warmJit(): Promise<void> {
  if (process.env.GPUFLOW_CUDA_WARMUP !== '1' || process.env.GPUFLOW_JIT_WARMUP === '0') return;
  const { warmWhile } = await import('./jit-warmup');
  traceStart(`worker-jit-warm-${await warmWhile(cudaWarmup())}`);
}

import('./main').then(
  () => warmJit().catch(() => undefined), // an optimisation only: never a reason to stop
  (e: unknown) => {
    process.stderr.write(`gpuflow worker: could not load: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
