/**
 * A GPU worker's device warm-up before it says ready (issue 30): what a fresh worker's first
 * chunk programs otherwise pay once, inside the run, is paid here on tiny programs while main
 * compiles and the other GPUs make their contexts. Read from the code path (no GPU on the build
 * machine), a first program pays:
 *   - loading its kernels: the addon's module is loaded lazily (CUDA_MODULE_LOADING=LAZY, the
 *     default since CUDA 12.2), so each kernel (fast.cu's fastKernel / leanF32NormalSum variants
 *     and foldKernel, program.cu's programKernel) is loaded into the context at its first
 *     occupancy query or launch, a driver call the four GPU workers' processes make at the same time;
 *   - each kernel's occupancy query (a function-local static per template instance: the first
 *     caller computes it, 15 others wait on it);
 *   - a stream per libuv thread (cudaStreamPerThread is made on a thread's first use: sixteen
 *     threads, sixteen streams, made by the first sixteen tasks);
 *   - the stream-ordered pool's first mapping (cudaMallocAsync of the partials buffer);
 *   - the pinned staging pool's first 8 MiB piece (cudaHostAlloc), for a task that uploads a host
 *     input or a peer's download;
 *   - V8 compiling the resident path's JavaScript (runResident, the DeviceApi calls, resultOf).
 * So each sample below runs once on every libuv thread (`threads` calls at once), and one array
 * goes up and comes back. The samples are the seed workloads' families in both float dtypes: a
 * [::2, ::2] region summed (the sliced seed), a contiguous one summed (every sample) and an
 * elementwise program whose output stays on the device. Other reductions (min, max, var) and
 * general programs with input leaves load their own kernels at first use, as before.
 *
 * Pure work: the outputs are freed, nothing is stored or sent, and a failure is left for the
 * first task to report with its own message. GPUFLOW_WARM_DEVICE=0 turns it off, =after runs it
 * just after ready (A/B runs: `deviceWarmupWhen`).
 */
import type { ChunkProgram, DType } from '../common/arrays';
import type { DeviceApi } from './resident/device-api';

/** A tiny normal(10, 1) leaf plus 1, every `step`-th element of each axis, summed over all axes or kept. */
function sample(dtype: DType, step: 1 | 2, reduce: boolean): ChunkProgram {
  const n = 8;
  const region = { start: [0, 0], step: [step, step], count: [n, n] };
  return {
    dtype,
    shape: [n, n],
    expr: {
      kind: 'binary',
      op: 'add',
      a: { kind: 'leaf', leaf: { kind: 'random', dist: 'normal', seed: 0, a: 10, b: 1, shape: [n * step, n * step], region } },
      b: { kind: 'leaf', leaf: { kind: 'fill', value: 1 } },
    },
    ...(reduce ? { reduce: { op: 'sum' as const, axis: null, ddof: 0, offset: [0, 0], globalShape: [n, n] } } : {}),
  };
}

/** The programs the warm-up runs, in order (the sliced seed's first: it is what a short run waits on). */
export const WARM_PROGRAMS: ChunkProgram[] = (['float64', 'float32'] as const).flatMap((dt) => [sample(dt, 2, true), sample(dt, 1, true), sample(dt, 1, false)]);

/**
 * When the warm-up runs: before the worker says ready (the default), right after it (=after: the
 * first tasks queue behind it on the libuv threads, and the first ready worker starts the run
 * sooner), or never (=0). Both placements are A/B arms of bench/scaling/device.sh ONLY=warmdev.
 */
export function deviceWarmupWhen(env: NodeJS.ProcessEnv = process.env): 'before-ready' | 'after-ready' | 'off' {
  const v = env.GPUFLOW_WARM_DEVICE;
  return v === '0' ? 'off' : v === 'after' ? 'after-ready' : 'before-ready';
}

/** Calls the addon runs at once: one per libuv thread the tasks will use. */
export function warmThreads(concurrency: number, env: NodeJS.ProcessEnv = process.env): number {
  const pool = Number(env.UV_THREADPOOL_SIZE);
  return Math.max(1, Math.min(concurrency, Number.isInteger(pool) && pool > 0 ? pool : 4));
}

export interface WarmReport {
  /** Program calls that completed. */
  programs: number;
  /** Calls that failed (left for the first task to report). */
  failed: number;
}

/** One call of `f`, its output freed; counts into `r`. */
async function counted(r: WarmReport, f: () => Promise<void>): Promise<void> {
  try {
    await f();
    r.programs++;
  } catch {
    r.failed++;
  }
}

/**
 * Runs each of WARM_PROGRAMS `threads` times at once on `api`, then one upload and download of a
 * small array; resolves with what ran (never rejects).
 */
export async function warmDevice(api: DeviceApi, threads: number): Promise<WarmReport> {
  const r: WarmReport = { programs: 0, failed: 0 };
  for (const p of WARM_PROGRAMS) {
    await Promise.all(
      Array.from({ length: threads }, () =>
        counted(r, async () => {
          const out = await api.runProgram(p, []);
          if ('id' in out) api.free(out.id);
        }),
      ),
    );
  }
  try {
    const id = await api.upload({ dtype: 'float64', shape: [8], data: new Float64Array(8) });
    try {
      await api.download({ id, dtype: 'float64', shape: [8], bytes: 64 });
    } finally {
      api.free(id);
    }
  } catch {
    r.failed++;
  }
  return r;
}
