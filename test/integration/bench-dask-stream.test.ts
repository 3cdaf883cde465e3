/**
 * A benchmark's Dask cluster configuration is streamed like the local ones: its runs' 'run'
 * events carry no benchmark id (the Dask run emits them itself), so a page learns the run from
 * benchProgress().runId and draws benchRunEvents(): here, on a real LocalCluster of one worker,
 * the Dask configuration's current run is named and its events so far are its own, with task
 * rectangles on the Dask worker's lane.
 */
import path from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchProgress } from '../../common/api';
import { GpuflowService } from '../../main/api/service';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { openStore } from '../../main/store';
import { DASK_PYTHON, skipDask, startLocalCluster, type SharedCluster } from '../helpers/dask-cluster';
import { seedDoc, tempDir } from '../reliability/helpers';

describe.skipIf(skipDask)('a benchmark on a Dask cluster', () => {
  let cluster: SharedCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster(1);
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it('names the Dask run going on and gives its events so far, tasks on the Dask lane', async () => {
    const dir = tempDir();
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, useGpus: false, backends: ['js'], threadsPerCpuWorker: 1 });
    await engine.start();
    const store = openStore(path.join(dir, 'gpuflow.db'));
    const svc = new GpuflowService(engine, store, { launcher: forkLauncher(), virtualGpus: 0, backends: ['js'] });
    try {
      await svc.setDaskTarget(cluster.address, { python: DASK_PYTHON });
      const started = svc.startBench({ ...seedDoc(), params: { N: 400, chunks: 100, seed: 0, dtype: 'float64' } }, { repeat: 200, warmup: 0 });
      const outcome = started.done.then(
        () => 'finished',
        (e: Error) => e.message,
      );
      // Wait for the Dask configuration's timed runs with a task streamed.
      let p: BenchProgress | undefined;
      for (let i = 0; i < 600; i++) {
        p = svc.benchProgress()[0];
        if (p && p.configs[p.configIndex] === 'Dask cluster' && p.phase === 'timed' && p.runId !== null && svc.benchRunEvents(started.benchId).some((e) => e.type === 'task')) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(p?.configs[p.configIndex]).toBe('Dask cluster');
      const sofar = svc.benchRunEvents(started.benchId);
      expect(sofar.every((e) => 'runId' in e && e.runId === p!.runId)).toBe(true);
      // The Dask run's own 'run' event, without a benchmark id: a page could not have told it was the benchmark's.
      expect(sofar.find((e) => e.type === 'run')).toMatchObject({ state: 'started' });
      expect(sofar.find((e) => e.type === 'run' && e.benchId !== undefined)).toBeUndefined();
      const lanes = new Set(sofar.flatMap((e) => (e.type === 'task' ? [e.worker] : [])));
      expect(lanes.size).toBeGreaterThan(0);
      expect([...lanes].every((l) => l.startsWith('dask-'))).toBe(true);
      expect(svc.cancelBench(started.benchId)).toBe(true);
      expect(await outcome).toBe('benchmark stopped');
    } finally {
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
