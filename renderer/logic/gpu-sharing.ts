/** The run view's label for a run whose trials shared GPUs (RunStats.gpuWorkersPerDevice), as text. */
import type { RunStats } from '../../common/results';

/**
 * "4 GPU workers per GPU" and why, when the run had more than one on each GPU (a search of small
 * trials, main/engine/gpu-sharing.ts); null otherwise: one per GPU is every other run's and says nothing.
 */
export function gpuSharingLabel(stats: Pick<RunStats, 'gpuWorkersPerDevice'>): { text: string; why: string } | null {
  const s = stats.gpuWorkersPerDevice;
  if (!s || s.perDevice <= 1) return null;
  return { text: `${s.perDevice} GPU workers per GPU`, why: s.why };
}
