/**
 * A GPU worker whose CUDA backend did not load (no addon, an addon built without nvcc, a driver
 * problem) still runs its tasks, on the CPU kernels: the workers panel must say so rather than
 * let it pass for a GPU. Framework-free so it is tested without a browser.
 */
import type { WorkerInfo } from '../../common/api';

/** For a GPU worker without CUDA: the backend it runs on instead and why; else null. */
export function gpuFallback(w: Pick<WorkerInfo, 'kind' | 'backends'>): { backend: string; reason: string } | null {
  if (w.kind !== 'gpu' || w.backends.length === 0) return null;
  const cuda = w.backends.find((b) => b.name === 'cuda');
  if (cuda?.available) return null;
  const backend = w.backends.find((b) => b.available)?.name ?? 'none';
  return { backend, reason: cuda?.reason ?? 'the worker did not offer the cuda backend' };
}
