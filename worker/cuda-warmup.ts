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
 * dlopen'ed, one handle of each made and left idle in the addon's pool; with GPUFLOW_WARM_GEMM=1
 * also a first float32 and float64 gemm) come only when main says the graph it compiles has linear
 * algebra (`warm-libraries`, `warmLibraries` here): on four H100s they cost a groupby about 50 ms
 * beside its first kernels (0.205 s without, 0.25-0.275 s with, issue 30). They start after the
 * context, while main compiles and the first tasks run; matmul / qr / svd wait for them
 * (`librariesReady`), and in the addon a lease taken meanwhile waits for the warm-up's handle
 * rather than make a second one at the same time. Any failure is left for cudaStatus() and the
 * first call to report, with their own messages.
 */
import { traceStart } from '../common/start-trace';
import { loadNative } from '../native/index';

let context: Promise<void> | null = null;
let libraries: Promise<void> | null = null;
let addonOf: { cudaWarmLibraries(gemmDtypes?: number): Promise<void> } | null = null;

function start(): Promise<void> {
  traceStart('worker-modules'); // node's own start and this module graph, before the addon's dlopen
  const n = loadNative();
  traceStart('worker-warmup-start');
  const quiet = (p: Promise<void>) => p.catch(() => undefined);
  if ('unavailable' in n) {
    context = libraries = Promise.resolve();
  } else {
    addonOf = n.addon;
    context = quiet(n.addon.cudaWarmContext()).then(() => traceStart('worker-context-done'));
    // GPUFLOW_WARM_LIBRARIES=eager: the library phase right after the context, whatever the graph
    // (what every GPU worker did before; A/B runs in bench/scaling/).
    if (process.env.GPUFLOW_WARM_LIBRARIES === 'eager') warmLibraries();
  }
  return context;
}

/**
 * The first gemms the library phase runs (the addon's bits: 1 float64, 2 float32): none unless
 * GPUFLOW_WARM_GEMM=1 (A/B on the GPU machine). Warm-up calls in this phase once moved a fresh
 * worker's first-call costs out of its matmul / SVD task but cost the run more than they saved
 * on one H100 (docs/performance.md); whether they pay on four GPUs, whose first gemms the driver
 * serialises, is what the A/B asks.
 */
const warmGemms = () => (process.env.GPUFLOW_WARM_GEMM === '1' ? 3 : 0);

/**
 * Queues the library phase after the context, once per process (main's `warm-libraries`; at
 * once in a worker without the warm-up, where it does nothing). GPUFLOW_WARM_LIBRARIES=0 leaves
 * it out: a linear algebra call then makes its own handle.
 */
export function warmLibraries(): void {
  if (libraries || !context || !addonOf || process.env.GPUFLOW_WARM_LIBRARIES === '0') return;
  const addon = addonOf;
  // Traced as it is queued: a short run may shut the worker down before the phase is done.
  traceStart('worker-libraries-start');
  // Chained on the context: the addon's leases are told to wait for this phase's handles
  // (beginWarmLibraries, inside cudaWarmLibraries) before a task that needs one can start.
  libraries = context
    .then(() => addon.cudaWarmLibraries(warmGemms()))
    .catch(() => undefined)
    .then(() => traceStart('worker-libraries-done'));
}

/**
 * Starts the warm-up once per process; resolves when the CUDA context is made (never rejects).
 * The library phase follows when asked (`warmLibraries`, `librariesReady`).
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
