/**
 * The first gpuflow-cuda trial's warm-up (worker/kernels/tfjs/trial-warmup.ts) through the whole
 * CLI: one GPU worker whose CUDA calls the CPU kernels answer (GPUFLOW_BENCH_FAKE_CUDA, a fake
 * nvidia-smi), the start-up trace on. The worker warms up once, after its rows' build started and
 * before they were built (the trace's order) when GPUFLOW_TRIAL_WARMUP asks for it; by default none runs; both give one digest.
 */
import { describe, expect, it } from 'vitest';
import { nativeInfo } from '../../native/index';
import { finishedDigest, runCli, type CliResult } from './cli-helpers';
import { fakeNvidiaSmi } from './fake-gpus';

const FILE = 'test/fixtures/workflows/search-wide-small.json';

/** `gpuflow run` of the small GPU search, waiting for its pipes to close (the worker's last trace lines included). */
function run(env: Record<string, string>): Promise<CliResult> {
  const gpu = { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(1), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_TRACE_START: '1', GPUFLOW_GPU_WORKERS_PER_DEVICE: '1' };
  return runCli(['run', FILE, '--json', '--no-store', '--cpu-workers', '0', '--param', 'trials=3'], { ...gpu, ...env }, 240_000, 'close');
}

/** The trace labels of the (one) GPU worker's trial steps, in the order it wrote them. */
function trialMarks(r: CliResult): string[] {
  return r.stderr
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f[0] === 'gpuflow-trace' && f[2]?.startsWith('worker-trial-'))
    .map((f) => f[2]);
}


describe.skipIf(!nativeInfo().available)("a GPU worker's first-trial warm-up", () => {
  it('runs once while the rows are built, and the search gives the digest it gives without it', async () => {
    const warmed = await run({ GPUFLOW_TRIAL_WARMUP: '32' });
    const off = await run({});
    expect(finishedDigest(warmed)).toBe(finishedDigest(off));

    const marks = trialMarks(warmed);
    expect(marks.filter((m) => m === 'worker-trial-warmup-start')).toHaveLength(1);
    const at = (label: string) => marks.indexOf(label);
    expect(at('worker-trial-data-start')).toBeGreaterThanOrEqual(0);
    expect(at('worker-trial-warmup-start')).toBeGreaterThan(at('worker-trial-data-start'));
    expect(at('worker-trial-warmup-done')).toBeGreaterThan(at('worker-trial-warmup-start'));
    expect(at('worker-trial-data-built')).toBeGreaterThan(at('worker-trial-warmup-done'));
    // The first trial starts after both; its steps are traced (train.ts).
    expect(at('worker-trial-1-start')).toBeGreaterThan(at('worker-trial-data-built'));
    expect(marks).toContain('worker-trial-1-epoch-1-batch-1');
    expect(marks).toContain('worker-trial-2-done');

    expect(trialMarks(off).filter((m) => m.startsWith('worker-trial-warmup'))).toEqual([]);
  }, 600_000);
});
