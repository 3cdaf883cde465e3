/**
 * Serve (and so the app) trains a search of small GPU trials on k GPU workers per GPU, as
 * `gpuflow run` does (main/engine/gpu-sharing.ts): its pool lends the run the missing workers
 * (WorkerPool.lendGpuWorkers) and stops them after. Without a GPU: a fake nvidia-smi lists two
 * GPUs and GPUFLOW_BENCH_FAKE_CUDA answers their CUDA calls with the CPU kernels; one CPU worker
 * beside them. The oracle is the CLI's own run of the same search (its own pool, 4 per GPU).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nativeInfo } from '../../native/index';
import type { RunResult } from '../../common/results';
import { api, startServe, tempDir, type Serving } from '../reliability/helpers';
import { runCli } from './cli-helpers';
import { fakeNvidiaSmi } from './fake-gpus';

const SEARCH = 'test/fixtures/workflows/search-wide-small.json';
const SEED = 'examples/seed-benchmark.json';
// Two trials per GPU worker, so every one of the 8 has a share to train (scheduler/placement.ts heldFor).
const TRIALS = ['--param', 'trials=16'];

type Printed = RunResult & { digest: string; storeId: number | null };

async function cli(args: string[], env: Record<string, string>): Promise<{ out: Printed; stderr: string }> {
  const r = await runCli(['run', ...args, '--json', '--cpu-workers', '1'], env, 240_000);
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as Printed;
  expect(out.status).toBe('finished');
  return { out, stderr: r.stderr };
}

/** The workers the stored run's task stream shows running tasks whose key starts with `prefix`. */
async function workersOf(s: Serving, storeId: number, prefix = ''): Promise<string[]> {
  const ev = (await api(s, 'GET', `/api/runs/${storeId}/events`)).json as Array<{ type: string; key: string; worker: string }>;
  return [...new Set(ev.filter((e) => e.type === 'task' && e.key.startsWith(prefix)).map((e) => e.worker))].sort();
}

const poolIds = async (s: Serving) => ((await api(s, 'GET', '/api/workers')).json as Array<{ id: string }>).map((w) => w.id).sort();

describe.skipIf(!nativeInfo().available)('serve: GPU workers per GPU for a search', () => {
  it('trains a small-trial search on 2 x 4 GPU workers with the CLI digest, and keeps one per GPU for other runs, after it and beside it', async () => {
    const env = { GPUFLOW_NVIDIA_SMI: fakeNvidiaSmi(2), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_DEVICES: '0,1', GPUFLOW_GPU_WORKERS_PER_DEVICE: '', GPUFLOW_DB: `${tempDir('gpuflow-serve-sharing-')}/gpuflow.db` };
    // The oracle: the CLI's run in its own pool, before serve is there to take it.
    const local = (await cli([SEARCH, ...TRIALS, '--no-store'], { ...env, GPUFLOW_START_ON_FIRST: '0' })).out;
    expect(local.stats.gpuWorkersPerDevice?.perDevice).toBe(4);

    const s = await startServe(['--cpu-workers', '1'], env);
    try {
      expect(await poolIds(s)).toEqual(['cpu0', 'gpu0', 'gpu1']);
      // Attached: serve runs it (no "running here"), planning 4 per GPU by the same rule.
      const { out, stderr } = await cli([SEARCH, ...TRIALS], env);
      expect(stderr).not.toContain('running here');
      expect(out.storeId).not.toBeNull();
      const gpus = ['gpu0', 'gpu0-1', 'gpu0-2', 'gpu0-3', 'gpu1', 'gpu1-1', 'gpu1-2', 'gpu1-3'];
      // The CPU worker may train some too (on wasm), as in the CLI's run.
      expect((await workersOf(s, out.storeId!, 'search/trial(')).filter((w) => w.startsWith('gpu'))).toEqual(gpus);
      expect(out.digest).toBe(local.digest);
      expect(out.stats.gpuWorkersPerDevice).toEqual(local.stats.gpuWorkersPerDevice);
      // The stored record: every GPU worker of the run names the count and why.
      const rec = (await api(s, 'GET', `/api/runs/${out.storeId}`)).json as { devices: Array<{ id: string; workersPerGpu?: number; workersPerGpuWhy?: string }> };
      expect(rec.devices.filter((d) => d.workersPerGpu === 4).map((d) => d.id).sort()).toEqual(gpus);
      expect(rec.devices.find((d) => d.id === 'gpu1-3')?.workersPerGpuWhy).toBe(local.stats.gpuWorkersPerDevice?.why);
      // The lent workers stop once the run is over: the pool is back to one per GPU.
      await expect.poll(() => poolIds(s), { timeout: 30_000 }).toEqual(['cpu0', 'gpu0', 'gpu1']);

      // A run without a search keeps one worker per GPU.
      const seed = (await cli([SEED, '--param', 'N=4000', '--param', 'chunks=1000'], env)).out;
      expect(seed.stats.gpuWorkersPerDevice).toEqual({ perDevice: 1, why: 'one per GPU (default)' });
      const ran = await workersOf(s, seed.storeId!);
      expect(ran.length).toBeGreaterThan(0);
      expect(ran.every((w) => ['cpu0', 'gpu0', 'gpu1'].includes(w))).toBe(true);
      expect(await poolIds(s)).toEqual(['cpu0', 'gpu0', 'gpu1']);

      // Both at once: the seed run beside the search never sees the workers lent to the search
      // (nor waits for those still starting), and its record does not list them.
      const post = async (file: string, params: Record<string, number>) => {
        const r = await api(s, 'POST', '/api/runs', { doc: JSON.parse(readFileSync(file, 'utf8')) as unknown, params });
        expect(r.status, JSON.stringify(r.json)).toBe(200);
        return (r.json as { storeId: number }).storeId;
      };
      const search = await post(SEARCH, { trials: 16 });
      // Once the lent workers are ready (and training), so they are there to be taken.
      const readyIds = async () => ((await api(s, 'GET', '/api/workers')).json as Array<{ id: string; backends: unknown[] }>).filter((w) => w.backends.length > 0).map((w) => w.id).sort();
      await expect.poll(readyIds, { timeout: 120_000, interval: 200 }).toEqual(['cpu0', ...gpus]);
      const beside = await post(SEED, { N: 8000, chunks: 1000 });
      const status = async (id: number) => ((await api(s, 'GET', `/api/runs/${id}`)).json as { status: string }).status;
      await expect.poll(async () => [await status(search), await status(beside)], { timeout: 240_000, interval: 500 }).toEqual(['done', 'done']);
      expect((await workersOf(s, search, 'search/trial(')).filter((w) => w.startsWith('gpu'))).toEqual(gpus);
      const besideRan = await workersOf(s, beside);
      expect(besideRan.length).toBeGreaterThan(0);
      expect(besideRan.every((w) => ['cpu0', 'gpu0', 'gpu1'].includes(w))).toBe(true);
      const besideRec = (await api(s, 'GET', `/api/runs/${beside}`)).json as { devices: Array<{ id: string; workersPerGpu?: number }> };
      expect(besideRec.devices.map((d) => d.id).sort()).toEqual(['cpu0', 'gpu0', 'gpu1']);
      expect(besideRec.devices.filter((d) => d.id.startsWith('gpu')).map((d) => d.workersPerGpu)).toEqual([1, 1]);
      await expect.poll(() => poolIds(s), { timeout: 30_000 }).toEqual(['cpu0', 'gpu0', 'gpu1']);
    } finally {
      await s.stop();
    }
  }, 600_000);
});
