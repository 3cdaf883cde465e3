/**
 * `gpuflow run` compiles a workflow once (main's start-up trace has one `compiled` line per
 * compile, main/engine/compile/compile.ts): a search's GPU workers per GPU are planned from the
 * engine's early compile, and `--dask` runs the graph its refusal check compiled before it
 * connected. Before, each compiled twice (run.ts searchSharing, then the engine's precompile;
 * firstRefusal's compile, then the Dask run's). A search beside a warm serve goes there unread and
 * serve compiles it once (before, the CLI compiled it to plan its GPU workers per GPU, then ran
 * it here and compiled it again). A search planned at several GPU workers per GPU keeps the
 * compile made for one per GPU (its trials read nothing of the workers; before, forPlan compiled
 * again), and `--dask local-cuda` compiles its refusal check for the GPUs CUDA_VISIBLE_DEVICES
 * names (before, for none, then again for the cluster's coarsening).
 */
import { describe, expect, it } from 'vitest';
import { nativeInfo } from '../../native/index';
import { skipDask, DASK_PYTHON } from '../helpers/dask-cluster';
import { startServe, tempDir } from '../reliability/helpers';
import { finishedDigest, runCli, type CliResult } from './cli-helpers';
import { fakeNvidiaSmi } from './fake-gpus';

/** How many compiles main's trace shows (workers trace under their own pids and never compile). */
function compiles(r: CliResult): number {
  expect(r.code, r.stderr.split('\n').filter((l) => !l.startsWith('gpuflow-trace')).join('\n')).toBe(0);
  return traced(r.stderr);
}

const traced = (stderr: string) =>
  stderr.split('\n').filter((l) => {
    const f = l.split(' ');
    return f[0] === 'gpuflow-trace' && f[2] === 'compiled';
  }).length;

describe('gpuflow run compiles once', () => {
  it.skipIf(!nativeInfo().available)('a search on GPU workers: the early compile plans the GPU workers per GPU and is the run’s', async () => {
    const env = { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(2), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_TRACE_START: '1' };
    const r = await runCli(['run', 'examples/tuning-random-search.json', '--json', '--no-store', '--cpu-workers', '0'], env, 200_000, 'close');
    expect(compiles(r)).toBe(1);
    const out = JSON.parse(r.stdout) as { status: string; stats: { gpuWorkersPerDevice?: { perDevice: number } } };
    expect(out.status).toBe('finished');
    // The small search's plan, read from that one graph: one GPU worker per GPU.
    expect(out.stats.gpuWorkersPerDevice?.perDevice).toBe(1);
  }, 300_000);

  it.skipIf(!nativeInfo().available)('a search planned at four GPU workers per GPU in the run’s own pool: the compile for one per GPU is kept', async () => {
    // No serve here: the pool is the CLI's own. The plan (4 per GPU) is read from the early
    // compile, made for one per GPU; the trials' graph reads nothing of the workers
    // (compile.ts compiledAs), so it is not compiled again for the smaller, more numerous workers.
    const env = { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(1), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_DEVICES: '0', GPUFLOW_GPU_WORKERS_PER_DEVICE: '', GPUFLOW_TRACE_START: '1' };
    const args = ['run', 'test/fixtures/workflows/search-wide-small.json', '--json', '--no-store', '--cpu-workers', '0', '--no-attach'];
    const r = await runCli(args, env, 200_000, 'close');
    expect(compiles(r)).toBe(1);
    const out = JSON.parse(r.stdout) as { status: string; digest: string; stats: { gpuWorkersPerDevice?: { perDevice: number } } };
    expect(out.status).toBe('finished');
    expect(out.stats.gpuWorkersPerDevice?.perDevice).toBe(4);
    // The oracle: the same pool asked for by the variable, planned before the compile (one compile, for four per GPU).
    const fixed = await runCli(args, { ...env, GPUFLOW_GPU_WORKERS_PER_DEVICE: '4' }, 200_000, 'close');
    expect(compiles(fixed)).toBe(1);
    expect(out.digest).toBe(finishedDigest(fixed));
  }, 300_000);

  it.skipIf(!nativeInfo().available)('a search beside a warm serve: serve compiles it, once; the CLI not at all', async () => {
    const env = { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(1), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_DEVICES: '0', GPUFLOW_GPU_WORKERS_PER_DEVICE: '', GPUFLOW_TRACE_START: '1', GPUFLOW_DB: `${tempDir('gpuflow-compile-once-')}/gpuflow.db` };
    const s = await startServe(['--cpu-workers', '0'], env);
    try {
      // serve's own compile of a small workflow once it listens (main/cli/serve.ts warmRunPath) is not the search's.
      for (let i = 0; i < 600 && !/ serve-run-path-warm /.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(s.stderr()).toMatch(/ serve-run-path-warm /);
      const before = traced(s.stderr());
      const r = await runCli(['run', 'test/fixtures/workflows/search-wide-small.json', '--json', '--cpu-workers', '0'], env, 200_000);
      expect(compiles(r)).toBe(0);
      const out = JSON.parse(r.stdout) as { status: string; stats: { gpuWorkersPerDevice?: { perDevice: number } } };
      expect(out.status).toBe('finished');
      expect(out.stats.gpuWorkersPerDevice?.perDevice).toBe(4);
      expect(traced(s.stderr()) - before).toBe(1);
    } finally {
      await s.stop();
    }
  }, 300_000);

  const seedArgs = ['run', 'examples/seed-benchmark.json', '--param', 'N=2000', '--param', 'chunks=200', '--json', '--no-store'];

  it.skipIf(skipDask)('--dask: the graph of the refusal check is the one the cluster runs', async () => {
    const r = await runCli([...seedArgs, '--dask', 'local:1'], { GPUFLOW_PYTHON: DASK_PYTHON, GPUFLOW_TRACE_START: '1' }, 240_000, 'close');
    expect(compiles(r)).toBe(1);
    expect((JSON.parse(r.stdout) as { status: string }).status).toBe('finished');
  }, 300_000);

  // local-cuda starts here without a GPU: CUDA_VISIBLE_DEVICES given by hand names its workers'
  // GPUs (python/gpuflow_dask/cuda_cluster.py), and their chunk programs run on the C API's CPU path.
  it.skipIf(skipDask)('--dask local-cuda: the refusal check compiles for the GPUs CUDA_VISIBLE_DEVICES names, and the cluster runs that graph', async () => {
    const r = await runCli([...seedArgs, '--dask', 'local-cuda'], { GPUFLOW_PYTHON: DASK_PYTHON, GPUFLOW_TRACE_START: '1', CUDA_VISIBLE_DEVICES: '0,1' }, 240_000, 'close');
    expect(compiles(r)).toBe(1);
    const out = JSON.parse(r.stdout) as { status: string; digest: string; stats: { tasks: number } };
    expect(out.status).toBe('finished');
    // The graph coarsened for two GPUs (24 tasks here, against local:1's 116 uncoarsened), with local:1's digest.
    const plain = await runCli([...seedArgs, '--dask', 'local:1'], { GPUFLOW_PYTHON: DASK_PYTHON }, 240_000);
    const local = JSON.parse(plain.stdout) as { digest: string; stats: { tasks: number } };
    expect(out.stats.tasks).toBeLessThan(local.stats.tasks);
    expect(out.digest).toBe(finishedDigest(plain));
  }, 300_000);
});
