/**
 * How a workflow compiles for a Dask target. Every target bounds its tasks by its smallest
 * worker's memory limit. A `local-cuda` cluster (one worker per GPU, each running chunk programs
 * through the addon's CUDA kernel) also gets the local engine's coarsening for GPU workers
 * (engine/compile/coarsen.ts): a reduction over generated data merges neighbouring chunks into
 * tasks of up to GPU_TASK_ELEMENTS while leaving each GPU at least 8. Without it the 2 TB sliced
 * seed is 2 500 chunk programs of ~0.6 ms each on an H100 (four GPUs: 1.3-1.5 s, whatever the
 * threads), against 72 for the local engine on the same four GPUs (0.25 s). Other targets are not
 * known to run programs on GPUs and keep CPU-sized chunks. GPUFLOW_COARSEN=0 turns it off, as
 * for local runs.
 */
import type { DaskWorker } from '../../common/dask-messages';
import type { CompileOptions } from '../engine/compile/compile';
import { GPU_TASK_ELEMENTS } from '../engine/compile/coarsen';

export function daskCompileOptions(target: string, workers: readonly DaskWorker[], env: NodeJS.ProcessEnv = process.env): Pick<CompileOptions, 'maxTaskBytes' | 'gpuShare'> {
  const limits = workers.map((w) => w.memory_limit).filter((x) => x > 0);
  const maxTaskBytes = limits.length ? Math.min(...limits) : undefined;
  return { maxTaskBytes, ...gpuShareOf(target, workers.length, env) };
}

/**
 * The options a compile before connecting can know (`gpuflow run --dask`'s refusal check, whose
 * graph the run takes when the cluster's options leave it as it is: compiledAs): a `local-cuda`
 * cluster's GPU count where CUDA_VISIBLE_DEVICES names its GPUs, as the bridge reads it
 * (python/gpuflow_dask/cuda_cluster.py visible_gpus: one worker per entry; dask-cuda reads the same
 * variable). Unset, the GPUs are those nvidia-smi lists, known only once the bridge has asked: the
 * check compiles for no GPU, and a graph that coarsens for GPUs is compiled again after connecting.
 * The bound on task bytes is the workers' and is checked after connecting (compiledAs).
 */
export function daskCompileOptionsBefore(target: string | null, env: NodeJS.ProcessEnv = process.env): Pick<CompileOptions, 'gpuShare'> {
  const listed = env.CUDA_VISIBLE_DEVICES;
  if (target !== 'local-cuda' || listed === undefined) return {};
  const gpus = listed.split(',').filter((g) => g.trim() !== '' && g.trim() !== '-1').length;
  return gpuShareOf(target, gpus, env);
}

/** Coarsening for a local-cuda cluster's `gpus` workers (none elsewhere, or with GPUFLOW_COARSEN=0). */
function gpuShareOf(target: string, gpus: number, env: NodeJS.ProcessEnv): Pick<CompileOptions, 'gpuShare'> {
  return target === 'local-cuda' && env.GPUFLOW_COARSEN !== '0' && gpus > 0 ? { gpuShare: { gpus, taskElements: GPU_TASK_ELEMENTS } } : {};
}
