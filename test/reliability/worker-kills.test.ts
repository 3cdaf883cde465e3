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
import { figures, prng, seedDoc, SOAK } from './helpers';

const KILLS = SOAK ? 100 : 20;
// Large enough that the run outlasts all the kills (each kill also costs a worker restart and
// the re-run of its tasks), small enough for well under a minute on 2 shared cores.
const PARAMS = SOAK ? { N: 8000, chunks: 100 } : { N: 5000, chunks: 100 };

// Was blocked by D1 (a lost input failed the run) and D2 (uncaught EPIPE in main); both fixed.
describe('workers SIGKILLed over one long run', () => {
  it(`completes with the clean run's answer after ${KILLS} kills`, { timeout: SOAK ? 900_000 : 120_000 }, async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    // Every kill must be answered by a restart here: the pool's give-up limit (5 restarts of one
    // worker within 60 s) and its backoff (250 ms doubling), tested in pool-restart.test.ts, are
    // set so that this soak's kills are all restarted while the run goes on.
    const engine = new Engine(d, { launcher: forkLauncher(), virtualGpus: 3, backends: ['js'], threadsPerCpuWorker: 1, maxRestarts: KILLS + 1, restartBackoffMs: 20 });
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
      // Kills are spread by progress, not by the clock, so all of them land during the run on a
      // fast machine and a slow one alike: kill i once i/(KILLS + 2) of the tasks have finished.
      const step = Math.max(1, Math.floor(h.compiled.tasks.size / (KILLS + 2)));
      let kills = 0;
      let completions = 0;
      const killedIds: string[] = [];
      const killedPids = new Set<number>();
      const t1 = Date.now();
      const unsub = engine.bus.subscribe((e) => {
        if (e.type === 'task' && e.runId === h.runId) {
          completions++;
          if (kills >= KILLS || completions < (kills + 1) * step) return;
          const alive = engine.pool.ready;
          // Keep at least one worker up so the run can go on while the victims restart.
          if (alive.length < 2) return;
          // A process already killed stays 'alive' until its exit event arrives: never kill it twice.
          const busy = alive.filter((w) => (running.get(w.id)?.size ?? 0) > 0 && !killedPids.has(w.pid!));
          if (busy.length === 0) return;
          const victim = rng.pick(busy);
          running.delete(victim.id);
          killedPids.add(victim.pid!);
          process.kill(victim.pid!, 'SIGKILL');
          killedIds.push(victim.id);
          kills++;
          return;
        }
        if (e.type !== 'task-state' || e.runId !== h.runId) return;
        if (e.to === 'running' && e.worker) {
          const s = running.get(e.worker) ?? new Set<string>();
          s.add(e.key);
          running.set(e.worker, s);
        } else if (e.from === 'running') for (const s of running.values()) s.delete(e.key);
      });
      const r = await h.result;
      unsub();
      // The last kills may land as the run ends: their restarts still come, after the backoff.
      const poolRestarts = () => [...engine.pool.restarts.values()].reduce((a, b) => a + b, 0);
      for (let i = 0; i < 150 && poolRestarts() < kills; i++) await new Promise((res) => setTimeout(res, 100));
      const restarts = poolRestarts();
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
