/**
 * Several GPU workers per GPU for a search of small GPU trials, through the whole CLI (`run
 * --json`) without a GPU: a fake nvidia-smi lists one GPU and GPUFLOW_BENCH_FAKE_CUDA answers its
 * CUDA calls with the CPU kernels. The wide-MLP-shaped search plans 4 workers on it (gpu0,
 * gpu0-1..3, trials on the extra ones too), says so in the run record, and its digest is the one
 * of GPUFLOW_GPU_WORKERS_PER_DEVICE=1, which wins over the rule; a model past the measured size
 * keeps one worker per GPU.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../common/results';
import { nativeInfo } from '../../native/index';
import { runCli } from './cli-helpers';
import { fakeNvidiaSmi } from './fake-gpus';

const FILE = 'test/fixtures/workflows/search-wide-small.json';

async function run(env: Record<string, string>, extra: string[] = []): Promise<RunResult & { digest: string; tasksPerWorker: Record<string, number> }> {
  const r = await runCli(['run', FILE, '--json', '--no-store', '--cpu-workers', '0', ...extra], env, 240_000);
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as RunResult & { digest: string; tasksPerWorker: Record<string, number> };
  expect(out.status).toBe('finished');
  return out;
}

describe.skipIf(!nativeInfo().available)('GPU workers per GPU for a search', () => {
  it('runs a small GPU search on 4 workers of one GPU, one digest with the explicit 1', async () => {
    // Every worker in the run from its start, so the extra workers are there for the trials.
    const env = { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(1), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_START_ON_FIRST: '0' };
    const shared = await run({ ...env, GPUFLOW_GPU_WORKERS_PER_DEVICE: '' });
    expect(Object.keys(shared.tasksPerWorker).sort()).toEqual(['gpu0', 'gpu0-1', 'gpu0-2', 'gpu0-3']);
    expect(shared.stats.gpuWorkersPerDevice?.perDevice).toBe(4);
    expect(shared.stats.gpuWorkersPerDevice?.why).toContain('largest trial 74496 multiply-adds per row');
    const extra = shared.tasksPerWorker['gpu0-1'] + shared.tasksPerWorker['gpu0-2'] + shared.tasksPerWorker['gpu0-3'];
    expect(extra).toBeGreaterThan(0);

    const one = await run({ ...env, GPUFLOW_GPU_WORKERS_PER_DEVICE: '1' });
    expect(Object.keys(one.tasksPerWorker)).toEqual(['gpu0']);
    expect(one.stats.gpuWorkersPerDevice).toEqual({ perDevice: 1, why: 'GPUFLOW_GPU_WORKERS_PER_DEVICE=1' });
    expect(shared.digest).toBe(one.digest);

    // 2 layers of 512: 280 064 multiply-adds per row, past the measured 74 496.
    const big = await run({ ...env, GPUFLOW_GPU_WORKERS_PER_DEVICE: '' }, ['--param', 'units=512', '--param', 'trials=2']);
    expect(Object.keys(big.tasksPerWorker)).toEqual(['gpu0']);
    expect(big.stats.gpuWorkersPerDevice).toEqual({ perDevice: 1, why: 'one per GPU: largest trial 280064 multiply-adds per row > 74496: sharing a GPU not measured for it' });
  }, 600_000);
});
