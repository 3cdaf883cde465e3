/**
 * Small outputs travel with their task's `done` (common/messages.ts INLINE_VALUE_BYTES, issue 30:
 * the fixed cost of a four-GPU run): a combine on one GPU worker gets the partials made on the
 * others inline in its `execute`, not by a peer fetch, and the run's scalar comes from main's copy.
 * Four GPU workers whose CUDA calls the CPU kernels answer (GPUFLOW_BENCH_FAKE_CUDA, a fake
 * nvidia-smi), every one in the run from its start, the sliced seed at N=2000 in 100² chunks
 * (coarsened to 32 partials in contiguous shares, so the combine tree's upper levels read partials
 * of every GPU). The digest is one CPU worker's; with GPUFLOW_INLINE_VALUES=0 (the fetches of
 * before) the same run moves partials between the workers, so the tree does cross them.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../common/results';
import { nativeInfo } from '../../native/index';
import { runCli } from './cli-helpers';
import { fakeNvidiaSmi } from './fake-gpus';

type Out = RunResult & { digest: string; tasksPerWorker: Record<string, number> };

async function run(extra: string[], env: Record<string, string>): Promise<Out> {
  const r = await runCli(['run', 'examples/seed-benchmark.json', '--json', '--no-store', '--param', 'N=2000', '--param', 'chunks=100', ...extra], env, 240_000);
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as Out;
  expect(out.status).toBe('finished');
  return out;
}

describe.skipIf(!nativeInfo().available)('small outputs sent with their done', () => {
  it('combine partials of four GPU workers without a peer fetch, one digest', async () => {
    const gpus = { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(4), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_START_ON_FIRST: '0' };
    const one = await run(['--cpu-workers', '1', '--threads', '1'], { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi' });
    const inline = await run(['--cpu-workers', '0'], gpus);
    const fetched = await run(['--cpu-workers', '0'], { ...gpus, GPUFLOW_INLINE_VALUES: '0' });
    for (const r of [inline, fetched]) {
      expect(r.digest).toBe(one.digest);
      for (const id of ['gpu0', 'gpu1', 'gpu2', 'gpu3']) expect(r.tasksPerWorker[id], id).toBeGreaterThan(0);
    }
    // The partials crossed workers: fetched from their peers before, inline now.
    expect(fetched.stats.transfers.count).toBeGreaterThan(0);
    expect(inline.stats.transfers).toMatchObject({ count: 0, bytes: 0 });
  }, 300_000);
});
