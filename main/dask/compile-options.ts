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
  const gpus = target === 'local-cuda' && env.GPUFLOW_COARSEN !== '0' ? workers.length : 0;
  return { maxTaskBytes, ...(gpus > 0 ? { gpuShare: { gpus, taskElements: GPU_TASK_ELEMENTS } } : {}) };
}
