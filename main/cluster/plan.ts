/**
 * Which workers a pool starts and with what environment: one per GPU (pinned with
 * CUDA_VISIBLE_DEVICES=<uuid>), the CPU workers and the virtual GPUs. Kept apart from the pool,
 * with type-only imports, so the CLI can fork the same workers (main/cluster/prelaunch.ts) before
 * the engine's modules have loaded.
 */
import type { WorkerConfig } from '../../common/messages';
import type { Discovery } from './discovery';

export interface PlanOptions {
  discovery: Discovery;
  /** Use the discovered GPUs (false: CPU workers only, as in a CPU benchmark configuration). */
  useGpus?: boolean;
  /** Limit the number of GPU workers (the "1 GPU" benchmark configuration). */
  maxGpus?: number;
  cpuWorkers?: number;
  threadsPerCpuWorker?: number;
  virtualGpus?: number;
  /**
   * GPU worker processes per GPU (default 1, or GPUFLOW_GPU_WORKERS_PER_DEVICE): 2 lets the
   * multi-GPU paths (CUDA IPC transfers, placement) run on one GPU. The second worker on GPU 0 is
   * `gpu0-1`; each gets its share of the GPU's memory.
   */
  gpuWorkersPerDevice?: number;
  /** Why `gpuWorkersPerDevice` (main/engine/gpu-sharing.ts), for the run record. */
  gpuWorkersWhy?: string;
  /**
   * Show every GPU in use to each GPU worker, its own first (CUDA_VISIBLE_DEVICES rotated, as
   * dask-cuda does), instead of its own alone (default false, or GPUFLOW_SHOW_ALL_GPUS=1): for
   * drivers that will not open a CUDA IPC handle from a GPU the process cannot see.
   */
  showAllGpus?: boolean;
  heartbeatMs?: number;
  /** Backend preference override, e.g. ['js'] to force the reference kernels. */
  backends?: WorkerConfig['backends'];
  /**
   * Memory limit in bytes for every worker, or per worker id (e.g. `{ vgpu0: 64 << 20 }`; workers
   * not named keep the default). Default: 90% of a GPU's memory; the host's share (60% of RAM
   * split between host workers) for CPU and virtual GPU workers.
   */
  memoryLimit?: number | Readonly<Record<string, number>>;
}

/** GPU worker processes per GPU and why, as the run record says it (RunStats.gpuWorkersPerDevice). */
export interface GpuSharing {
  perDevice: number;
  why: string;
}

export const ENV_PER_DEVICE = 'GPUFLOW_GPU_WORKERS_PER_DEVICE';
/** Kernel calls in flight on each GPU worker (default 16). */
export const ENV_GPU_CONCURRENCY = 'GPUFLOW_GPU_CONCURRENCY';

/** The option, else GPUFLOW_GPU_WORKERS_PER_DEVICE, else one; and why. */
export function gpuWorkersPerDevice(opts: Pick<PlanOptions, 'gpuWorkersPerDevice' | 'gpuWorkersWhy'>): GpuSharing {
  if (opts.gpuWorkersPerDevice !== undefined) return { perDevice: opts.gpuWorkersPerDevice, why: opts.gpuWorkersWhy ?? 'set by the caller' };
  const set = envCount(ENV_PER_DEVICE);
  if (set !== undefined) return { perDevice: set, why: `${ENV_PER_DEVICE}=${set}` };
  return { perDevice: 1, why: 'one per GPU (default)' };
}

export interface PlannedWorker {
  config: WorkerConfig;
  env: Record<string, string>;
}

const MiB = 1024 * 1024;

export function planWorkers(opts: PlanOptions, token: string): PlannedWorker[] {
  const hb = opts.heartbeatMs ?? 500;
  const d = opts.discovery;
  const gpus = opts.useGpus === false ? [] : d.gpus.slice(0, opts.maxGpus ?? d.gpus.length);
  const cpuWorkers = opts.cpuWorkers ?? 1;
  const virtual = opts.virtualGpus ?? 0;
  const threads = opts.threadsPerCpuWorker ?? Math.max(1, d.cpu.cores - gpus.length);
  const hostShare = Math.max(256 * MiB, (d.cpu.memoryTotalBytes * 0.6) / Math.max(1, cpuWorkers + virtual + gpus.length));
  const out: PlannedWorker[] = [];
  // Kernel calls in flight on a GPU worker: each holds a libuv thread while it waits for the
  // device, and libuv has 4 unless told, which capped these workers at 4 whatever the scheduler
  // gave them (on the H100, with 16: the 2 TB seed workload 1.59 s instead of 1.67 s).
  // GPUFLOW_GPU_CONCURRENCY sets it for A/B runs (bench/scaling/device.sh ONLY=gpuconc). 16 tasks
  // in flight share the GPU and end together, so a worker's first results come after 16 tasks'
  // time; 8 looked better in one call on nvidia-h100-x4 (5963d6f, 3 runs: sliced seed 144 -> 128
  // ms float32, 237 -> 214 float64) and no better in the next (e227e54, 2 runs: 139 -> 147,
  // 210 -> 220; one GPU's every-sample float64 1572 against 1572), so 16 stays
  // (docs/performance.md, "A GPU worker's first programs").
  const gpuConcurrency = envCount(ENV_GPU_CONCURRENCY) ?? 16;
  const backends = opts.backends ?? ['cuda', 'native-cpu', 'js'];
  const { perDevice } = gpuWorkersPerDevice(opts);
  const showAll = opts.showAllGpus ?? process.env.GPUFLOW_SHOW_ALL_GPUS === '1';
  for (const [gi, g] of gpus.entries()) for (let w = 0; w < perDevice; w++) {
    const visible = showAll ? [...gpus.slice(gi), ...gpus.slice(0, gi)].map((x) => x.uuid).join(',') : g.uuid;
    out.push({
      config: {
        id: w === 0 ? `gpu${g.index}` : `gpu${g.index}-${w}`,
        kind: 'gpu',
        label: perDevice > 1 ? `${g.name} (worker ${w + 1} of ${perDevice})` : g.name,
        threads: 2,
        // Many tasks in flight hide the main -> worker -> main round trip behind short kernels.
        concurrency: gpuConcurrency,
        gpuUuid: g.uuid,
        memoryLimit: Math.max(256 * MiB, (g.memoryTotalMiB * MiB * 0.9) / perDevice),
        peerToken: token,
        backends,
        heartbeatMs: hb,
      },
      // GPUFLOW_CUDA_WARMUP: the worker makes its CUDA context as soon as it starts (worker/cuda-warmup.ts).
      env: { CUDA_VISIBLE_DEVICES: visible, UV_THREADPOOL_SIZE: String(gpuConcurrency), ...(backends.includes('cuda') ? { GPUFLOW_CUDA_WARMUP: '1' } : {}) },
    });
  }
  for (let i = 0; i < cpuWorkers; i++) {
    out.push({
      config: { id: `cpu${i}`, kind: 'cpu', label: `CPU (${threads} threads)`, threads, concurrency: 1, memoryLimit: hostShare, peerToken: token, backends: opts.backends ?? ['native-cpu', 'js'], heartbeatMs: hb },
      env: { CUDA_VISIBLE_DEVICES: '' },
    });
  }
  for (let i = 0; i < virtual; i++) {
    out.push({
      config: { id: `vgpu${i}`, kind: 'virtual-gpu', label: `virtual GPU ${i} (CPU-backed)`, threads: 1, concurrency: 1, memoryLimit: hostShare, peerToken: token, backends: opts.backends ?? ['native-cpu', 'js'], heartbeatMs: hb },
      env: { CUDA_VISIBLE_DEVICES: '' },
    });
  }
  const limit = opts.memoryLimit;
  if (limit !== undefined) {
    for (const { config } of out) {
      const bytes = typeof limit === 'number' ? limit : limit[config.id];
      if (bytes === undefined) continue;
      if (!Number.isFinite(bytes) || bytes <= 0) throw new RangeError(`memoryLimit for ${config.id} must be a positive number of bytes, got ${bytes}`);
      config.memoryLimit = bytes;
    }
  }
  return out;
}

/** A positive integer from the environment, or undefined; anything else is an error naming it. */
function envCount(name: string): number | undefined {
  const v = process.env[name];
  if (v === undefined || v === '') return undefined;
  if (!/^[1-9]\d*$/.test(v)) throw new RangeError(`${name} must be a positive integer, got '${v}'`);
  return Number(v);
}

/** The environment a worker process gets on its `attempt`-th start (1, 2...): its logs and the test-only start fault read it. */
export function launchEnv(env: Record<string, string>, attempt: number): Record<string, string> {
  return { ...env, GPUFLOW_START_ATTEMPT: String(attempt) };
}
