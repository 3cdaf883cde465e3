/**
 * The local workers a command's options ask for (--cpu-workers, --virtual-gpus, --threads,
 * --backend, --no-gpus; none with --dask), in one place: the engine is started with them
 * (main/cli/cluster.ts), and `gpuflow run` forks the same workers before the engine's modules load
 * (`prelaunchFor`). Light imports only: this runs before the fork.
 */
import type { Prelaunch } from '../cluster/prelaunch';
import type { PlanOptions } from '../cluster/plan';
import { intOption, UsageError, type Parsed } from './args';

export type WorkerOptions = Required<Pick<PlanOptions, 'useGpus' | 'virtualGpus' | 'cpuWorkers'>> & Pick<PlanOptions, 'threadsPerCpuWorker' | 'backends'>;

/** Throws UsageError naming the bad option. */
export function workerOptions(opts: Parsed['values']): WorkerOptions {
  const backend = opts.backend;
  if (backend !== undefined && !['js', 'native-cpu', 'cuda'].includes(backend)) throw new UsageError(`--backend must be js, native-cpu or cuda, got '${backend}'`);
  const virtualGpus = intOption(opts['virtual-gpus'], 'virtual-gpus') ?? 0;
  const cpuWorkers = intOption(opts['cpu-workers'], 'cpu-workers') ?? 1;
  const threadsPerCpuWorker = intOption(opts.threads, 'threads', 1);
  const backends = backend ? [backend as 'js' | 'native-cpu' | 'cuda'] : undefined;
  // With --dask the runs go to the cluster: no local workers are started.
  const dask = opts.dask !== undefined;
  return { useGpus: dask ? false : !opts['no-gpus'], virtualGpus: dask ? 0 : virtualGpus, cpuWorkers: dask ? 0 : cpuWorkers, threadsPerCpuWorker, backends };
}

/**
 * Forks the workers `opts` asks for now (main/cluster/prelaunch.ts), or nothing when the options
 * are bad (the command reports them), name no local worker, or GPUFLOW_PRELAUNCH=0.
 */
export async function prelaunchFor(opts: Parsed['values']): Promise<Prelaunch | undefined> {
  if (process.env.GPUFLOW_PRELAUNCH === '0' || opts.dask !== undefined) return undefined;
  let w: WorkerOptions;
  try {
    w = workerOptions(opts);
  } catch (e) {
    if (e instanceof UsageError) return undefined;
    throw e;
  }
  const [{ prelaunch }, { forkLauncher }, { discover, restrictGpus }, { procGpus }] = await Promise.all([
    import('../cluster/prelaunch'),
    import('../cluster/fork-launcher'),
    import('../cluster/discovery'),
    import('../cluster/proc-gpus'),
  ]);
  // The driver's listing is a hint for the real nvidia-smi only (a GPUFLOW_NVIDIA_SMI stand-in
  // describes other GPUs, as tests do); GPUFLOW_PROC_GPUS=0 turns it off (bench A/B).
  const env = process.env;
  const listed = w.useGpus && env.GPUFLOW_NVIDIA_SMI === undefined && env.GPUFLOW_PROC_GPUS !== '0' ? procGpus() : null;
  const hint = listed && restrictGpus(listed, env.GPUFLOW_DEVICES).gpus;
  return prelaunch(forkLauncher(), w, discover(), hint);
}

/**
 * The identity of the worker pool `opts` asks for (the options above, the GPUs GPUFLOW_DEVICES
 * picks, the GPU workers per GPU GPUFLOW_GPU_WORKERS_PER_DEVICE asks for and the calls in flight on
 * each, GPUFLOW_GPU_CONCURRENCY): a `gpuflow run` hands its run to a warm serve only when this matches serve's own.
 */
export function workerPoolKey(opts: Parsed['values'], env: NodeJS.ProcessEnv = process.env): string {
  const w = workerOptions(opts);
  // GPU workers per GPU set by hand: serve's pool has that many; one the search rule plans is
  // checked against serve's default (one) by `gpuflow run` itself (main/cli/run.ts).
  return JSON.stringify({ ...w, backends: w.backends ?? null, threadsPerCpuWorker: w.threadsPerCpuWorker ?? null, devices: env.GPUFLOW_DEVICES ?? null, gpuWorkersPerDevice: env.GPUFLOW_GPU_WORKERS_PER_DEVICE || null, gpuConcurrency: env.GPUFLOW_GPU_CONCURRENCY || null });
}
