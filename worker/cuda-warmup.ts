/**
 * The CUDA context and the cuBLAS / cuSOLVER handles, made while the rest starts. Creating a
 * context and loading those libraries takes a GPU worker a good part of a second, and the addon
 * used to do it on the JS thread when the cuda backend first asked for info(). A GPU worker
 * (GPUFLOW_CUDA_WARMUP=1, set by main/cluster/plan.ts) now starts it on a libuv thread as its
 * first act, before its other modules have loaded and before main has sent `init`; the cuda
 * backend (worker/kernels/cuda.ts) waits for it instead of blocking. Any failure is left for
 * info() and the first call to report, with their own messages.
 */
import { traceStart } from '../common/start-trace';
import { loadNative } from '../native/index';

let warming: Promise<void> | null = null;

/** Starts the warm-up once per process; resolves when it is over (never rejects). */
export function cudaWarmup(): Promise<void> {
  if (!warming) {
    const n = loadNative();
    traceStart('worker-warmup-start');
    warming = ('unavailable' in n || !n.addon.cudaWarmup ? Promise.resolve() : n.addon.cudaWarmup().catch(() => undefined)).then(() => traceStart('worker-warmup-done'));
  }
  return warming;
}

/** A GPU worker's early start: the warm-up when `env` asks for it, else null (CPU workers never touch CUDA here). */
export function warmupFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<void> | null {
  return env.GPUFLOW_CUDA_WARMUP === '1' ? cudaWarmup() : null;
}

warmupFromEnv();
