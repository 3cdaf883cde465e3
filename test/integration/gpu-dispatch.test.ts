/**
 * Dispatch for several GPUs through the whole engine without a GPU (the CLI, `run --json`), the
 * seed workload at N=2000 in 100² chunks (20 x 20: 400 partials and their combines on one CPU
 * worker), each run's digest against 1 CPU worker alone:
 * - 1 CPU + 3 virtual GPUs: the reduction is coarsened for the GPU workers (CPU-sized tasks,
 *   compile/coarsen.ts) and every GPU worker runs some;
 * - 1 CPU + 2 GPU workers whose CUDA calls the CPU kernels answer (GPUFLOW_BENCH_FAKE_CUDA, a
 *   fake nvidia-smi listing two GPUs): the programs and combines are the GPUs' alone (placement
 *   by device kind), in contiguous shares, so the CPU worker takes none and no partial goes to it.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../common/results';
import { nativeInfo } from '../../native/index';
import { runCli } from './cli-helpers';
import { fakeNvidiaSmi } from './fake-gpus';

const NO_GPU = { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi' };
const PARAMS = ['--param', 'N=2000', '--param', 'chunks=100'];
const FILES = ['examples/seed-benchmark.json', 'bench/engine-gpu/seed-full.json'];

async function run(file: string, extra: string[], env: Record<string, string> = NO_GPU): Promise<RunResult & { digest: string }> {
  const r = await runCli(['run', file, '--json', '--no-store', ...PARAMS, ...extra], env, 240_000);
  expect(r.code, `${file} ${extra.join(' ')}: ${r.stderr}`).toBe(0);
  const out = JSON.parse(r.stdout) as RunResult & { digest: string };
  expect(out.status).toBe('finished');
  return out;
}

const tasksBy = (r: RunResult) => new Map(r.stats.workers.map((w) => [w.id, w.tasks]));

describe('dispatch on several GPU workers', () => {
  for (const file of FILES) {
    it(`${file}: one digest on virtual GPUs, coarser tasks, every GPU worker busy`, async () => {
      const one = await run(file, ['--cpu-workers', '1', '--threads', '1']);
      const gpus = await run(file, ['--cpu-workers', '1', '--virtual-gpus', '3']);
      expect(gpus.digest).toBe(one.digest);
      expect(one.stats.tasks).toBeGreaterThan(400);
      expect(gpus.stats.tasks).toBeLessThan(one.stats.tasks / 4);
      for (const id of ['vgpu0', 'vgpu1', 'vgpu2']) expect(tasksBy(gpus).get(id)).toBeGreaterThan(0);
    }, 300_000);
  }

  it.skipIf(!nativeInfo().available)('keeps the CPU worker out of the GPU programs beside cuda GPU workers, one digest', async () => {
    // Every worker in the run from its start (GPUFLOW_START_ON_FIRST=0; else it starts on the first
    // ready GPU and the CPU worker may join after its end): the CPU worker is there and takes none.
    const env = { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_START_ON_FIRST: '0' };
    for (const file of FILES) {
      const one = await run(file, ['--cpu-workers', '1', '--threads', '1']);
      const mixed = await run(file, ['--cpu-workers', '1'], env);
      expect(mixed.digest).toBe(one.digest);
      const by = tasksBy(mixed);
      expect([...by.keys()].sort()).toEqual(['cpu0', 'gpu0', 'gpu1']);
      expect(by.get('cpu0')).toBe(0);
      expect(by.get('gpu0')).toBeGreaterThan(0);
      expect(by.get('gpu1')).toBeGreaterThan(0);
      expect(mixed.stats.tasks).toBeLessThan(one.stats.tasks / 4);
      // Contiguous shares: each combine finds most of its partials where it runs.
      expect(mixed.stats.transfers.count).toBeLessThan(mixed.stats.tasks / 4);
    }
  }, 300_000);
});
