/**
 * Fault: SIGKILL of workers, many times over one long run. The pool notices each death, restarts
 * the worker, the scheduler re-runs its tasks and recomputes lost chunks; the answer must equal a
 * clean run's. Default: 20 kills; GPUFLOW_SOAK=1: 100 kills over a larger run.
 */
import { describe, expect, it } from 'vitest';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { figures, prng, seedDoc, SOAK, STRICT } from './helpers';

const KILLS = SOAK ? 100 : 20;
const PARAMS = SOAK ? { N: 8000, chunks: 100 } : { N: 4000, chunks: 100 };

// Blocked by engine defects D1 (a task whose input fetch hits a killed peer fails the whole run:
// "read ECONNRESET") and D2 (fork-launcher send() to a just-killed child throws an uncaught EPIPE
// that takes the main process down); see docs/reliability.md. Runs with GPUFLOW_RELIABILITY_STRICT=1.
describe('workers SIGKILLed over one long run', () => {
  (STRICT ? it : it.skip)(`completes with the clean run's answer after ${KILLS} kills`, { timeout: SOAK ? 900_000 : 120_000 }, async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const engine = new Engine(d, { launcher: forkLauncher(), virtualGpus: 3, backends: ['js'], threadsPerCpuWorker: 1 });
    await engine.start();
    try {
      const wf = validateWorkflow(seedDoc(), PARAMS);
      const t0 = Date.now();
      const clean = await engine.run(wf).result;
      const cleanMs = Date.now() - t0;
      expect(clean.status).toBe('finished');

      const rng = prng(9);
      const h = engine.run(wf);
      const running = new Map<string, Set<string>>(); // worker -> tasks running on it now
      const unsub = engine.bus.subscribe((e) => {
        if (e.type !== 'task-state' || e.runId !== h.runId) return;
        if (e.to === 'running' && e.worker) {
          const s = running.get(e.worker) ?? new Set<string>();
          s.add(e.key);
          running.set(e.worker, s);
        } else if (e.from === 'running') for (const s of running.values()) s.delete(e.key);
      });
      let kills = 0;
      let done = false;
      const killedIds: string[] = [];
      const t1 = Date.now();
      const killer = (async () => {
        while (kills < KILLS && !done) {
          await new Promise((r) => setTimeout(r, 250 + rng.int(300)));
          const alive = engine.pool.ready;
          // Keep at least two workers up so the run can go on while the victims restart.
          if (alive.length < 3) continue;
          const busy = alive.filter((w) => (running.get(w.id)?.size ?? 0) > 0);
          if (busy.length === 0) continue;
          const victim = rng.pick(busy);
          running.delete(victim.id);
          process.kill(victim.pid!, 'SIGKILL');
          killedIds.push(victim.id);
          kills++;
        }
      })();
      const r = await h.result;
      done = true;
      await killer;
      unsub();
      const restarts = [...engine.pool.restarts.values()].reduce((a, b) => a + b, 0);
      figures('worker-sigkill', {
        kills,
        tasks: r.stats.tasks,
        restartsInRun: r.stats.restarts,
        poolRestarts: restarts,
        cleanMs,
        faultyMs: Date.now() - t1,
        status: r.status,
        clean: clean.results.total,
        faulty: r.results.total,
      });
      expect(r.status, r.error).toBe('finished');
      expect(kills).toBe(KILLS);
      expect(restarts).toBeGreaterThanOrEqual(KILLS);
      // Same chunks, same seeds; only the order of the tree reduction may differ.
      const a = (clean.results.total as { value: number }).value;
      const b = (r.results.total as { value: number }).value;
      expect(Math.abs(a - b) / Math.abs(a)).toBeLessThan(1e-12);
    } finally {
      await engine.shutdown();
    }
  });
});
