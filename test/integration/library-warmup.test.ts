/**
 * The GPU workers' cuBLAS / cuSOLVER warm-up only for graphs with linear algebra (issue 30 item
 * 1): two GPU workers whose CUDA calls the CPU kernels answer (GPUFLOW_BENCH_FAKE_CUDA, a fake
 * nvidia-smi listing two GPUs), the start-up trace on. The seed workload (reductions, no linear
 * algebra) never starts the library phase (before, every GPU worker ran it after its context:
 * about 50 ms beside a groupby's first kernels on four H100s); a matmul starts it on each GPU
 * worker (main's `warm-libraries`, sent as the compile starts); both give the one-CPU-worker digest.
 */
import { describe, expect, it } from 'vitest';
import { nativeInfo } from '../../native/index';
import { runCli, type CliResult } from './cli-helpers';
import { fakeNvidiaSmi } from './fake-gpus';

type Ran = CliResult;

/** `gpuflow run`, waiting for its pipes to close (the workers' last trace lines included). */
function run(args: string[], env: Record<string, string>): Promise<Ran> {
  return runCli(['run', ...args, '--json', '--no-store'], env, 200_000, 'close');
}

/** The processes (trace names) that reached `label`. */
function reached(stderr: string, label: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('gpuflow-trace ') && l.split(' ')[2] === label)
    .map((l) => l.split(' ')[1])
    .sort();
}

function digestOf(r: Ran): string {
  expect(r.code, r.stderr.split("\n").filter((l) => !l.startsWith("gpuflow-trace")).join("\n")).toBe(0);
  const out = JSON.parse(r.stdout) as { status: string; digest: string };
  expect(out.status).toBe('finished');
  return out.digest;
}

describe.skipIf(!nativeInfo().available)('library warm-up on GPU workers', () => {
  const gpus = () => ({ GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_TRACE_START: '1' });
  const cpu = { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi' };

  it('is not started for a graph without linear algebra', async () => {
    const args = ['examples/seed-benchmark.json', '--param', 'N=2000', '--param', 'chunks=100'];
    const r = await run([...args, '--cpu-workers', '0'], gpus());
    const one = digestOf(await run([...args, '--cpu-workers', '1'], cpu));
    expect(digestOf(r)).toBe(one);
    // Both GPU workers made their context; neither made the library handles.
    expect(reached(r.stderr, 'worker-context-done')).toHaveLength(2);
    expect(reached(r.stderr, 'worker-libraries-done')).toEqual([]);
  }, 300_000);

  it('is started on every GPU worker for a matmul, the one-worker digest', async () => {
    const args = ['bench/scaling/matmul.json', '--param', 'N=256', '--param', 'chunks=64'];
    const r = await run([...args, '--cpu-workers', '0'], gpus());
    const one = digestOf(await run([...args, '--cpu-workers', '1'], cpu));
    expect(digestOf(r)).toBe(one);
    const contexts = reached(r.stderr, 'worker-context-done');
    expect(contexts).toHaveLength(2);
    expect(reached(r.stderr, 'worker-libraries-done')).toEqual(contexts);
  }, 300_000);
});
