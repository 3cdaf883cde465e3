/**
 * Issue 30, a warm run's fixed part: the groupby example run again and again on a warm pool, as a
 * `gpuflow serve` runs it (GpuflowService with a store), with the cuts of that work: a worker reads
 * back the small partials it made without decoding them (worker/kernels/df/ipc.ts), main sends a
 * one-partition result as the worker wrote it (main/engine/table-result.ts). On 4 GPU workers whose
 * CUDA calls the CPU kernels answer (GPUFLOW_BENCH_FAKE_CUDA; their df ops run on js) and on 4
 * virtual GPUs, every worker with tasks, every run's digest is the one CPU worker's, and every
 * run's record is complete: done, that digest, one stored event per task.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GpuflowService } from '../../main/api/service';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import type { PoolOptions } from '../../main/cluster/pool';
import { Engine } from '../../main/engine/engine';
import { openStore } from '../../main/store';
import { nativeInfo } from '../../native/index';

const doc = JSON.parse(readFileSync('examples/dataframe-groupby.json', 'utf8')) as unknown;
const params = { rows_per_partition: 200, partitions: 12 };

function discovery(gpus: number) {
  return {
    gpus: Array.from({ length: gpus }, (_, i) => ({ index: i, uuid: `GPU-fake-test-${i}`, name: 'fake GPU', memoryTotalMiB: 4096, memoryUsedMiB: 0, utilizationPct: 0, pciBusId: '', driverVersion: '' })),
    cpu: { cores: cpus().length, model: '', memoryTotalBytes: 8 << 30, memoryFreeBytes: 4 << 30 },
  };
}

/** `runs` runs of the example on one warm pool: each digest, and the records' checks. */
async function warmRuns(gpus: number, pool: Omit<PoolOptions, 'discovery' | 'launcher'>, runs: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-warm-groupby-'));
  const launcher = forkLauncher();
  const engine = new Engine(discovery(gpus), { launcher, ...pool });
  await engine.start();
  const store = openStore(path.join(dir, 'gpuflow.db'));
  const svc = new GpuflowService(engine, store, { launcher, virtualGpus: pool.virtualGpus ?? 0, backends: pool.backends });
  const out: Array<{ digest: string | null; workers: Record<string, number> }> = [];
  try {
    for (let i = 0; i < runs; i++) {
      const started = await svc.runAsync(doc, { params });
      const r = await started.done;
      expect(r.status, r.error).toBe('finished');
      const rec = store.getRun(started.storeId!);
      expect(rec).toMatchObject({ status: 'done', resultDigest: r.digest });
      expect(store.listEvents(started.storeId!).filter((e) => e.type === 'task')).toHaveLength(r.stats.tasks);
      out.push({ digest: r.digest, workers: Object.fromEntries(r.stats.workers.map((w) => [w.id, w.tasks])) });
    }
  } finally {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

describe('the groupby example on a warm pool', () => {
  it('one digest on one CPU worker, 4 virtual GPUs and 4 fake-cuda GPUs, every worker with tasks, records complete', async () => {
    const [one] = await warmRuns(0, { cpuWorkers: 1, virtualGpus: 0, backends: ['js'], threadsPerCpuWorker: 1 }, 1);
    expect(one.digest).toMatch(/^[0-9a-f]{64}$/);
    const pools: Array<[number, Omit<PoolOptions, 'discovery' | 'launcher'>]> = [[0, { cpuWorkers: 0, virtualGpus: 4, backends: ['js'] }]];
    if (nativeInfo().available) pools.push([4, { useGpus: true, maxGpus: 4, cpuWorkers: 0, virtualGpus: 0, backends: ['cuda', 'js'] }]);
    const prev = process.env.GPUFLOW_BENCH_FAKE_CUDA;
    process.env.GPUFLOW_BENCH_FAKE_CUDA = '1';
    try {
      for (const [gpus, pool] of pools) {
        const runs = await warmRuns(gpus, pool, 3);
        for (const r of runs) {
          expect(r.digest).toBe(one.digest);
          expect(Object.keys(r.workers)).toHaveLength(4);
          for (const [id, n] of Object.entries(r.workers)) expect(n, id).toBeGreaterThan(0);
        }
      }
    } finally {
      if (prev === undefined) delete process.env.GPUFLOW_BENCH_FAKE_CUDA;
      else process.env.GPUFLOW_BENCH_FAKE_CUDA = prev;
    }
  }, 240_000);
});
