/**
 * A benchmark is visible while it runs and can be cancelled: the service's benchProgress() names
 * the configuration and repetition on now with the time so far, and cancelBench() stops it (the
 * result is "benchmark stopped", nothing is recorded, the progress list is empty again). Its runs'
 * events are on the service's stream, each run's 'run' event marked with the benchmark's id, so
 * the page can draw the current run's task stream; benchRunEvents() gives the current run's events
 * from its start (a page that loads mid-run draws them).
 */
import path from 'node:path';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BenchProgress } from '../../common/api';
import { GpuflowService } from '../../main/api/service';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { openStore } from '../../main/store';
import { seedDoc, tempDir } from '../reliability/helpers';

describe('a running benchmark', () => {
  it('shows its configuration and repetition, and stops when cancelled', async () => {
    const dir = tempDir();
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const engine = new Engine(d, { launcher: forkLauncher(), virtualGpus: 1, cpuWorkers: 1, backends: ['js'], threadsPerCpuWorker: 1 });
    await engine.start();
    const store = openStore(path.join(dir, 'gpuflow.db'));
    const svc = new GpuflowService(engine, store, { launcher: forkLauncher(), virtualGpus: 1, backends: ['js'] });
    try {
      expect(svc.benchProgress()).toEqual([]);
      let rep2: () => void = () => undefined;
      const reached = new Promise<void>((r) => (rep2 = r));
      const benchRuns = new Map<string, string>();
      const finished: string[] = [];
      const tasksOf = new Map<string, number>();
      svc.subscribe((e) => {
        if (e.type === 'log' && /1 CPU core: repetition 2\//.test(e.message)) rep2();
        if (e.type === 'run' && e.benchId !== undefined) {
          if (e.state === 'started') benchRuns.set(e.runId, e.benchId);
          if (e.state === 'finished') finished.push(e.runId);
        }
        if (e.type === 'task' && benchRuns.has(e.runId)) tasksOf.set(e.runId, (tasksOf.get(e.runId) ?? 0) + 1);
      });
      const started = svc.startBench({ ...seedDoc(), params: { N: 400, chunks: 100, seed: 0, dtype: 'float64' } }, { repeat: 40, warmup: 1 });
      const outcome = started.done.then(
        () => 'finished',
        (e: Error) => e.message,
      );
      await reached;
      const [p] = svc.benchProgress() as [BenchProgress];
      expect(p).toMatchObject({ benchId: started.benchId, configs: ['1 CPU core', 'all CPU cores', '1 GPU (virtual)', 'all GPUs (virtual)'], configIndex: 0, phase: 'timed', warmup: 1, repeat: 40 });
      // The warm-up and two repetitions at least have run (the log line comes after the second).
      expect(p.runsDone).toBeGreaterThanOrEqual(3);
      expect(p.lastMs).toBeGreaterThan(0);
      expect(p.etaMs).toBeGreaterThan(0);
      // Every run so far is this benchmark's, and each finished one streamed the same tasks (one workflow).
      expect(new Set(benchRuns.values())).toEqual(new Set([started.benchId]));
      expect(finished.length).toBeGreaterThanOrEqual(3);
      const counts = finished.map((r) => tasksOf.get(r) ?? 0);
      expect(counts[0]).toBeGreaterThan(0);
      expect(new Set(counts).size).toBe(1);
      // The run on now is named, and its events so far come from its start (a page that loads now draws them).
      const now = svc.benchProgress()[0].runId;
      expect(now).not.toBeNull();
      const sofar = svc.benchRunEvents(started.benchId);
      expect(sofar.length).toBeGreaterThan(0);
      expect(sofar.every((e) => 'runId' in e && e.runId === now)).toBe(true);
      expect(sofar[0]).toMatchObject({ type: 'run', state: 'started', benchId: started.benchId });
      expect(svc.benchRunEvents('not-a-bench')).toEqual([]);
      expect(svc.cancelBench('not-a-bench')).toBe(false);
      expect(svc.cancelBench(started.benchId)).toBe(true);
      expect(await outcome).toBe('benchmark stopped');
      expect(svc.benchProgress()).toEqual([]);
      expect(store.listBenchmarks()).toEqual([]);
    } finally {
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
