/**
 * Closing the service stops a benchmark that is running (issue 19: SIGTERM closed serve's port
 * but the benchmark ran on headless for over 70 s on its own pools). A benchmark of 50
 * repetitions is started; after its first timed repetition the service is closed: the benchmark
 * rejects with "benchmark stopped", close() returns only after its pools are down, and no
 * benchmark record is written.
 */
import path from 'node:path';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GpuflowService } from '../../main/api/service';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { openStore } from '../../main/store';
import { figures, seedDoc, tempDir } from './helpers';

describe('a benchmark when the service closes', () => {
  it('is stopped, its pools shut down, nothing recorded', async () => {
    const dir = tempDir();
    try {
      const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
      const engine = new Engine(d, { launcher: forkLauncher(), virtualGpus: 1, cpuWorkers: 1, backends: ['js'], threadsPerCpuWorker: 1 });
      await engine.start();
      const store = openStore(path.join(dir, 'gpuflow.db'));
      const svc = new GpuflowService(engine, store, { launcher: forkLauncher(), virtualGpus: 1, backends: ['js'] });
      const progress: string[] = [];
      let firstRep: () => void = () => undefined;
      const repeated = new Promise<void>((r) => (firstRep = r));
      svc.subscribe((e) => {
        if (e.type !== 'log') return;
        progress.push(e.message);
        if (/repetition 1\//.test(e.message)) firstRep();
      });
      const started = svc.startBench({ ...seedDoc(), params: { N: 400, chunks: 100, seed: 0, dtype: 'float64' } }, { repeat: 50, warmup: 0 });
      const outcome = started.done.then(
        () => 'finished',
        (e: Error) => e.message,
      );
      await repeated;
      await svc.close();
      const result = await outcome;
      const reps = progress.filter((m) => /repetition/.test(m)).length;
      figures('bench-stop', { result, repetitionsDone: reps, of: 50 });
      expect(result).toBe('benchmark stopped');
      expect(reps).toBeLessThan(50);
      const again = openStore(path.join(dir, 'gpuflow.db'));
      expect(again.listBenchmarks()).toEqual([]);
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
