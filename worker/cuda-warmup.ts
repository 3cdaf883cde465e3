/**
 * The CUDA context and the cuBLAS / cuSOLVER handles, made while the rest starts. Creating a
 * context and loading those libraries takes a GPU worker a good part of a second, and the addon
 * used to do it on the JS thread when the cuda backend first asked for info(). A GPU worker
 * (GPUFLOW_CUDA_WARMUP=1, set by main/cluster/plan.ts) starts it on a libuv thread as its first
 * act (worker/boot.ts), before its other modules have loaded and before main has sent `init`.
 *
 * Two phases. The context (the addon's cudaWarmContext) is what the worker's `ready` waits for:
 * the cuda backend (worker/kernels/cuda.ts) asks cudaStatus() only after it, and the first program
 * task needs nothing more. The cuBLAS and cuSOLVER handles (cudaWarmLibraries: the libraries
 * dlopen'ed, one handle of each made and left idle in the addon's pool) follow in the background,
 * while main compiles and the first tasks run; matmul / qr / svd wait for them (`librariesReady`),
 * and in the addon a lease taken meanwhile waits for the warm-up's handle rather than make a
 * second one at the same time. Any failure is left for cudaStatus() and the first call to report,
 * with their own messages.
 */
import { traceStart } from '../common/start-trace';
import { loadNative } from '../native/index';

let context: Promise<void> | null = null;
let libraries: Promise<void> | null = null;

function start(): Promise<void> {
  traceStart('worker-modules'); // node's own start and this module graph, before the addon's dlopen
  const n = loadNative();
  traceStart('worker-warmup-start');
  const quiet = (p: Promise<void>) => p.catch(() => undefined);
  if ('unavailable' in n) {
    context = libraries = Promise.resolve();
  } else {
    const addon = n.addon;
    context = quiet(addon.cudaWarmContext()).then(() => traceStart('worker-context-done'));
    // Chained here, first: the library phase is queued (and the addon's leases told to wait for
    // it) before anyone awaiting the context can ask cudaStatus() or start a task.
    // GPUFLOW_WARM_LIBRARIES=0 leaves it out (A/B runs, bench/scaling/: does it slow the first
    // kernels beside it?); a linear algebra call then makes its own handle.
    libraries =
      process.env.GPUFLOW_WARM_LIBRARIES === '0'
        ? context
        : context
            .then(() => addon.cudaWarmLibraries())
            .catch(() => undefined)
            .then(() => traceStart('worker-libraries-done'));
  }
  return context;
}

/**
 * Starts the warm-up once per process; resolves when the CUDA context is made (never rejects).
 * The library phase goes on after it (`librariesReady`).
 */
export function cudaWarmup(): Promise<void> {
  return context ?? start();
}

/**
 * Resolves when the warm-up's cuBLAS / cuSOLVER phase is over, at once when no warm-up was
 * started (a lease then makes its own handle); never rejects. What a linear algebra call awaits.
 */
export function librariesReady(): Promise<void> {
  return libraries ?? Promise.resolve();
}

/** A GPU worker's early start: the warm-up when `env` asks for it, else null (CPU workers never touch CUDA here). */
export function warmupFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<void> | null {
  return env.GPUFLOW_CUDA_WARMUP === '1' ? cudaWarmup() : null;
}

warmupFromEnv();
