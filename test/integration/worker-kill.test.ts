import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';

const seed = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));

describe('a worker killed mid-run', () => {
  it('is noticed, restarted, its tasks re-run, and the answer is unchanged', async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const engine = new Engine(d, { launcher: forkLauncher(), virtualGpus: 2, backends: ['js'], threadsPerCpuWorker: 1 });
    await engine.start();
    try {
      const wf = validateWorkflow(seed, { N: 6000, chunks: 500 });
      const clean = await engine.run(wf).result;
      expect(clean.status).toBe('finished');

      const h = engine.run(wf);
      let killedPid: number | undefined;
      let noticedAfter = -1;
      let killedAt = 0;
      const unsub = engine.bus.subscribe((e) => {
        if (e.type === 'task' && e.runId === h.runId && killedPid === undefined) {
          const victim = engine.pool.workers.get('vgpu1')!;
          killedPid = victim.pid;
          killedAt = Date.now();
          process.kill(killedPid!, 'SIGKILL');
        }
        if (e.type === 'worker' && e.state === 'down' && e.pid === killedPid && noticedAfter < 0) noticedAfter = Date.now() - killedAt;
      });
      const r = await h.result;
      unsub();
      expect(r.status).toBe('finished');
      expect(r.results.total).toEqual(clean.results.total);
      expect(noticedAfter).toBeGreaterThanOrEqual(0);
      expect(noticedAfter).toBeLessThan(2000);
      expect(engine.pool.restarts.get('vgpu1')).toBe(1);
      expect(engine.pool.workers.get('vgpu1')!.pid).not.toBe(killedPid);
    } finally {
      await engine.shutdown();
    }
  });
});
