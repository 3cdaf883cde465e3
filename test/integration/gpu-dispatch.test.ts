/**
 * Dispatch for several GPUs through the whole engine, with CPU-backed virtual GPUs (the CLI,
 * `run --json`): the seed workload on 1 CPU + 3 virtual GPUs (the default set's shape: GPU and
 * CPU workers) gives the digest of 1 CPU worker alone; its reduction is coarsened for the GPUs
 * (fewer tasks than chunks), every GPU worker runs its share, and the CPU worker takes none of
 * the fused programs or their combines, so no chunk partial crosses the host to it.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../common/results';
import { runCli } from './cli-helpers';

const NO_GPU = { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi' };
const PARAMS = ['--param', 'N=2000', '--param', 'chunks=100'];

async function run(file: string, extra: string[]): Promise<RunResult & { digest: string }> {
  const r = await runCli(['run', file, '--json', '--no-store', ...PARAMS, ...extra], NO_GPU, 240_000);
  expect(r.code, `${file} ${extra.join(' ')}: ${r.stderr}`).toBe(0);
  const out = JSON.parse(r.stdout) as RunResult & { digest: string };
  expect(out.status).toBe('finished');
  return out;
}

describe('dispatch on several GPU workers', () => {
  for (const file of ['examples/seed-benchmark.json', 'bench/engine-gpu/seed-full.json']) {
    it(`${file}: one digest, coarser tasks on every GPU worker, none on the CPU worker`, async () => {
      const one = await run(file, ['--cpu-workers', '1', '--threads', '1']);
      const gpus = await run(file, ['--cpu-workers', '1', '--virtual-gpus', '3']);
      expect(gpus.digest).toBe(one.digest);
      // 20 x 20 chunks: 400 partials and their combines on the CPU alone; merged for the GPUs.
      expect(one.stats.tasks).toBeGreaterThan(400);
      expect(gpus.stats.tasks).toBeLessThan(one.stats.tasks / 4);
      const by = new Map(gpus.stats.workers.map((w) => [w.id, w.tasks]));
      expect(by.get('cpu0')).toBe(0);
      for (const id of ['vgpu0', 'vgpu1', 'vgpu2']) expect(by.get(id)).toBeGreaterThan(0);
    }, 300_000);
  }
});
