/**
 * The GPU workers' cuBLAS / cuSOLVER warm-up only for graphs with linear algebra (issue 30 item
 * 1): two GPU workers whose CUDA calls the CPU kernels answer (GPUFLOW_BENCH_FAKE_CUDA, a fake
 * nvidia-smi listing two GPUs), the start-up trace on. The seed workload (reductions, no linear
 * algebra) never starts the library phase (before, every GPU worker ran it after its context:
 * about 50 ms beside a groupby's first kernels on four H100s); a matmul starts it on each GPU
 * worker (main's `warm-libraries`, sent as the compile starts); both give the one-CPU-worker digest.
 * The device warm-up (tiny programs before ready, worker/device-warmup.ts) runs on GPU workers
 * only and leaves the digest as it is.
 */
import { describe, expect, it } from 'vitest';
import { nativeInfo } from '../../native/index';
import { finishedDigest, runCli, type CliResult } from './cli-helpers';
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


describe.skipIf(!nativeInfo().available)('library warm-up on GPU workers', () => {
  const gpus = () => ({ GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_TRACE_START: '1' });
  const cpu = { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi' };

  it('is not started for a graph without linear algebra', async () => {
    const args = ['examples/seed-benchmark.json', '--param', 'N=2000', '--param', 'chunks=100'];
    const r = await run([...args, '--cpu-workers', '0'], gpus());
    const one = finishedDigest(await run([...args, '--cpu-workers', '1'], cpu));
    expect(finishedDigest(r)).toBe(one);
    // Both GPU workers made their context; neither made the library handles.
    expect(reached(r.stderr, 'worker-context-done')).toHaveLength(2);
    expect(reached(r.stderr, 'worker-libraries-start')).toEqual([]);
    expect(reached(r.stderr, 'worker-libraries-done')).toEqual([]);
  }, 300_000);

  it('is started on every GPU worker for a matmul, the one-worker digest', async () => {
    const args = ['bench/scaling/matmul.json', '--param', 'N=256', '--param', 'chunks=64'];
    const r = await run([...args, '--cpu-workers', '0'], gpus());
    const one = finishedDigest(await run([...args, '--cpu-workers', '1'], cpu));
    expect(finishedDigest(r)).toBe(one);
    const contexts = reached(r.stderr, 'worker-context-done');
    expect(contexts).toHaveLength(2);
    // Every GPU worker that got as far as reading main's messages (each one that said ready)
    // queued the phase behind its context; a worker that ran a product finished it first (its
    // leases wait for the handles). This run is short and starts on the first ready worker, so
    // the other may be shut down before it reads a message or finishes the phase: `done` is
    // required of some, `start` of every ready one.
    const started = reached(r.stderr, 'worker-libraries-start');
    expect(started).toEqual(expect.arrayContaining(reached(r.stderr, 'worker-ready')));
    expect(contexts).toEqual(expect.arrayContaining(started));
    const done = reached(r.stderr, 'worker-libraries-done');
    expect(done.length).toBeGreaterThan(0);
    expect(started).toEqual(expect.arrayContaining(done));
  }, 300_000);

  // The device warm-up before ready (worker/device-warmup.ts): every GPU worker runs its 6 tiny
  // programs on each of its 16 libuv threads, none failing; GPUFLOW_WARM_DEVICE=0 leaves it out,
  // =after runs it after ready; the digest is the one-CPU-worker digest each way, and CPU workers
  // never run it.
  it('runs the device warm-up on every GPU worker only, the same digest with it off or after ready', async () => {
    const args = ['examples/seed-benchmark.json', '--param', 'N=2000', '--param', 'chunks=100', '--param', 'dtype=float32'];
    const on = await run([...args, '--cpu-workers', '1'], gpus());
    const off = await run([...args, '--cpu-workers', '0'], { ...gpus(), GPUFLOW_WARM_DEVICE: '0' });
    const after = await run([...args, '--cpu-workers', '0'], { ...gpus(), GPUFLOW_WARM_DEVICE: 'after' });
    const one = await run([...args, '--cpu-workers', '1'], { ...cpu, GPUFLOW_TRACE_START: '1' });
    expect(finishedDigest(on)).toBe(finishedDigest(one));
    expect(finishedDigest(off)).toBe(finishedDigest(one));
    expect(finishedDigest(after)).toBe(finishedDigest(one));
    // A GPU worker that said ready had warmed first (a short run may end before the second is
    // ready: the run starts on the first, issue 30); the CPU worker never warms.
    const gpuWorkers = reached(on.stderr, 'worker-context-done');
    const ready = reached(on.stderr, 'worker-ready');
    const readyGpus = gpuWorkers.filter((w) => ready.includes(w));
    expect(readyGpus.length).toBeGreaterThan(0);
    expect(ready.filter((w) => !gpuWorkers.includes(w))).toHaveLength(1);
    const lines = on.stderr.split('\n');
    const at = (w: string, label: string) => lines.findIndex((l) => l.startsWith(`gpuflow-trace ${w} ${label} `));
    for (const w of readyGpus) {
      expect(at(w, 'worker-device-warm-96')).toBeGreaterThan(-1);
      expect(at(w, 'worker-device-warm-96')).toBeLessThan(at(w, 'worker-ready'));
    }
    const warmed = (r: Ran) => r.stderr.split('\n').filter((l) => / worker-device-warm-/.test(l));
    expect(warmed(off)).toEqual([]);
    expect(warmed(one)).toEqual([]);
  }, 300_000);
});
