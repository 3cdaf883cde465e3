/**
 * Coarser chunk tasks for runs with GPU workers (issue 30): a GPU finishes a 10 000² generated
 * chunk in about 0.3 ms, less than main and the worker spend on the task itself (~0.13 ms of
 * main's thread each), so four GPUs wait on dispatch. A reduction over an array that reads no
 * task output (generators and the elementwise work fused onto them) may be re-blocked for free
 * (reblock.ts: random numbers are addressed by global index, so any chunking computes the same
 * elements): neighbouring chunks are merged into tasks of up to GPU_TASK_ELEMENTS elements, while
 * at least TASKS_PER_GPU tasks are left for each GPU worker so every GPU stays busy to the end.
 *
 * Example: the 2 TB seed workload (500 000² in 10 000² chunks of 1e8 elements) on four GPUs:
 * target min(2^30, 2.5e11 / (4 x 8)) = 2^30 elements, a factor of 10.7, so 3 x 3 chunks a task:
 * 17 x 17 = 289 tasks instead of 2 500; sliced [::2, ::2] (5 000² chunks) 6 x 7: 72 instead.
 *
 * Only the partial sums change grouping (float64 partials: the 13th digit; float32 lineage keeps
 * 6 digits in the digest, common/digest.ts). GPUFLOW_COARSEN=0 turns it off (A/B runs).
 */
import { sizeOf } from '../../../common/arrays';
import type { GpuShare, LazyArray } from '../ops/types';
import { reblockLazy } from './reblock';

/**
 * Elements a coarsened GPU task may hold: 2^30 (8 GiB of float64 generated and summed, never
 * materialised; about 7 ms on an H100), below the 2^31 the device kernels index a block with.
 */
export const GPU_TASK_ELEMENTS = 2 ** 30;
/**
 * The cap for GPU workers that run on the CPU (virtual GPUs, or GPU workers whose cuda backend is
 * absent): 2^20 elements, tens of ms there, so a cancel or a lost worker costs no more than that.
 */
export const CPU_BACKED_TASK_ELEMENTS = 2 ** 20;
/** Tasks left for each GPU worker at least, so the GPUs share the work to its end. */
export const TASKS_PER_GPU = 8;

/** Merge factors per axis whose product is at most `factor`, axes with fewer chunks first. */
export function mergeFactors(chunkCounts: number[], factor: number): number[] {
  const out = chunkCounts.map(() => 1);
  const axes = chunkCounts.map((_, d) => d).filter((d) => chunkCounts[d] > 1).sort((x, y) => chunkCounts[x] - chunkCounts[y]);
  let left = factor;
  axes.forEach((d, i) => {
    const f = Math.max(1, Math.min(chunkCounts[d], Math.floor(left ** (1 / (axes.length - i)) + 1e-9)));
    out[d] = f;
    left /= f;
  });
  return out;
}

/** `chunks` with each run of `f` neighbours merged into one. */
function merged(chunks: number[], f: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < chunks.length; i += f) out.push(chunks.slice(i, i + f).reduce((s, x) => s + x, 0));
  return out;
}

/** `a` in coarser chunks for a reduction on `share.gpus` GPU workers, or `a` itself when it cannot or need not be. */
export function coarsenForGpus(a: LazyArray, share: GpuShare): LazyArray {
  const { gpus } = share;
  if (gpus <= 0) return a;
  const blocks = a.chunks.reduce((n, c) => n * c.length, 1);
  const total = sizeOf(a.shape);
  // Blocks of unknown length (a mask selection, unknown-sizes.ts) are kept as they are.
  if (blocks <= gpus * TASKS_PER_GPU || total <= 0) return a;
  const target = Math.min(share.taskElements, total / (gpus * TASKS_PER_GPU));
  const factors = mergeFactors(a.chunks.map((c) => c.length), target / (total / blocks));
  if (factors.every((f) => f === 1)) return a;
  return reblockLazy(a, a.chunks.map((c, d) => merged(c, factors[d]))) ?? a;
}
