/**
 * Several GPU workers per GPU for a search of small GPU trials, through the whole CLI (`run
 * --json`) without a GPU: a fake nvidia-smi lists one GPU and GPUFLOW_BENCH_FAKE_CUDA answers its
 * CUDA calls with the CPU kernels. The wide-MLP-shaped search plans 4 workers on it (gpu0,
 * gpu0-1..3, trials on the extra ones too), says so in the run record, and its digest is the one
 * of GPUFLOW_GPU_WORKERS_PER_DEVICE=1, which wins over the rule; a model past the measured size
 * keeps one worker per GPU. A warm serve (one worker per GPU) takes both: the small one on the
 * workers its pool lends for it (test/integration/serve-gpu-sharing.test.ts), the big one on its
 * own; a pool asked for by hand with k per GPU is another pool.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../common/results';
import { nativeInfo } from '../../native/index';
import { parseCli } from '../../main/cli/args';
import { workerPoolKey } from '../../main/cli/workers';
import { startServe, tempDir } from '../reliability/helpers';
import { runCli } from './cli-helpers';
import { fakeNvidiaSmi } from './fake-gpus';

const FILE = 'test/fixtures/workflows/search-wide-small.json';

type Printed = RunResult & { digest: string; storeId: number; tasksPerWorker: Record<string, number> };

async function runStderr(env: Record<string, string>, extra: string[] = [], store = ['--no-store']): Promise<{ out: Printed; stderr: string }> {
  const r = await runCli(['run', FILE, '--json', ...store, '--cpu-workers', '0', ...extra], env, 240_000);
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as Printed;
  expect(out.status).toBe('finished');
  return { out, stderr: r.stderr };
}
const run = async (env: Record<string, string>, extra: string[] = []) => (await runStderr(env, extra)).out;

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

  it("a benchmark's GPU configurations train the small search on 4 workers of the GPU, one digest with the CPU rows", async () => {
    const env = { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(1), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_GPU_WORKERS_PER_DEVICE: '', GPUFLOW_DB: `${tempDir('gpuflow-sharing-bench-')}/gpuflow.db` };
    const r = await runCli(['bench', FILE, '--repeat', '1', '--warmup', '0', '--json', '--param', 'trials=4'], env, 400_000);
    expect(r.code, r.stderr).toBe(0);
    const b = JSON.parse(r.stdout) as { configs: Array<{ name: string; workers: number; digest: string }>; digestsAgree: boolean };
    expect(b.configs.map((c) => [c.name, c.workers])).toEqual([['1 CPU core', 1], ['all CPU cores', expect.any(Number)], ['1 GPU', 4], ['all GPUs', 4]]);
    expect(b.digestsAgree).toBe(true);
  }, 600_000);

  it('a warm serve takes the small search on 4 workers of its GPU and the big one on 1; a hand-set k is another pool', async () => {
    const db = `${tempDir('gpuflow-sharing-')}/gpuflow.db`;
    const env = { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(1), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_START_ON_FIRST: '0', GPUFLOW_DB: db, GPUFLOW_GPU_WORKERS_PER_DEVICE: '', GPUFLOW_DEVICES: '0' };
    const s = await startServe(['--cpu-workers', '0'], env);
    try {
      const small = await runStderr(env, [], []);
      expect(small.stderr).toBe('');
      expect(Object.keys(small.out.tasksPerWorker).sort()).toEqual(['gpu0', 'gpu0-1', 'gpu0-2', 'gpu0-3']);
      // The stored record: each GPU worker of the run names the count and why.
      const shown = await runCli(['show', String(small.out.storeId), '--json'], env);
      const devices = (JSON.parse(shown.stdout) as { target: { devices: Array<{ id: string; workersPerGpu?: number; workersPerGpuWhy?: string }> } }).target.devices;
      expect(devices.map((d) => [d.id, d.workersPerGpu]).sort()).toEqual([['gpu0', 4], ['gpu0-1', 4], ['gpu0-2', 4], ['gpu0-3', 4]]);
      expect(devices[0].workersPerGpuWhy).toBe(small.out.stats.gpuWorkersPerDevice?.why);
      // Attached: the record is serve's, whose pool keeps its default one worker per GPU for it.
      const big = await runStderr(env, ['--param', 'units=512', '--param', 'trials=2'], []);
      expect(big.stderr).toBe('');
      expect(big.out.stats.gpuWorkersPerDevice).toEqual({ perDevice: 1, why: 'one per GPU (default)' });
    } finally {
      await s.stop();
    }
    const opts = parseCli(['run', FILE, '--cpu-workers', '0']).values;
    expect(workerPoolKey(opts, { GPUFLOW_GPU_WORKERS_PER_DEVICE: '2' })).not.toBe(workerPoolKey(opts, {}));
    expect(workerPoolKey(opts, { GPUFLOW_GPU_WORKERS_PER_DEVICE: '' })).toBe(workerPoolKey(opts, {}));
  }, 600_000);
});
