/**
 * main/cli/workers.ts workerPoolKey: a `gpuflow run` attaches to a warm serve only when the pool
 * it would start is serve's, GPU workers' calls in flight (GPUFLOW_GPU_CONCURRENCY) included:
 * an A/B run at 4 must not be answered by a pool at 16.
 */
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../../main/cli/args';
import { workerPoolKey } from '../../../main/cli/workers';

describe('worker pool key', () => {
  const opts = parseCli(['run', 'examples/seed-benchmark.json', '--cpu-workers', '0']).values;

  it('differs with GPUFLOW_GPU_CONCURRENCY, and an empty value is the default', () => {
    expect(workerPoolKey(opts, { GPUFLOW_GPU_CONCURRENCY: '4' })).not.toBe(workerPoolKey(opts, {}));
    expect(workerPoolKey(opts, { GPUFLOW_GPU_CONCURRENCY: '' })).toBe(workerPoolKey(opts, {}));
    expect(workerPoolKey(opts, { GPUFLOW_GPU_CONCURRENCY: '4' })).toBe(workerPoolKey(opts, { GPUFLOW_GPU_CONCURRENCY: '4' }));
  });
});
