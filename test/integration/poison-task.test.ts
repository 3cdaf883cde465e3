/**
 * A task that kills every worker it reaches, and a pool with no worker left (issue 29 item 7).
 * The poison here is the one the old compiler made: a block program nested 2 000 levels deep (a 2 000-node scalar_op chain),
 * which overflows the stack of Node's IPC deserializer in the worker before any handler runs.
 * It must fail its run after killing two workers, not go round all of them until the pool gives
 * each up; later runs must run; and when every worker is given up, a new run fails at once
 * naming why instead of staying `running` forever.
 */
import { describe, expect, it } from 'vitest';
import type { Expr } from '../../common/arrays';
import type { TaskDef } from '../../common/tasks';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { MAX_CRASHES } from '../../main/engine/scheduler/scheduler';
import { validateWorkflow } from '../../main/engine/validate';
import { chain } from '../helpers/local-run';

const doc = chain(['x', 'ones', { shape: [8], chunks: [4] }], ['total', 'reduce', { op: 'sum' }]);

/** `expr` under `depth` levels of neg: what a long scalar chain fused into before the bound. */
function deep(expr: Expr, depth: number): Expr {
  let e = expr;
  for (let i = 0; i < depth; i++) e = { kind: 'unary', op: 'neg', arg: e };
  return e;
}

async function engineWith(maxRestarts: number): Promise<Engine> {
  const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
  const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 0, virtualGpus: 2, backends: ['js'], threadsPerCpuWorker: 1, maxRestarts, restartBackoffMs: 20 });
  await engine.start();
  return engine;
}

describe('a poison task', () => {
  it(`fails its run after ${MAX_CRASHES} worker deaths, naming the task; the next run finishes`, { timeout: 120_000 }, async () => {
    const engine = await engineWith(5);
    try {
      const wf = validateWorkflow(doc);
      const compiled = engine.compile(wf);
      const poisoned = new Map<string, TaskDef>();
      let victim = '';
      for (const [k, t] of compiled.tasks) {
        if (!victim && t.spec.kind === 'program') {
          victim = k;
          poisoned.set(k, { ...t, spec: { ...t.spec, program: { ...t.spec.program, expr: deep(t.spec.program.expr, 2000) } } });
        } else poisoned.set(k, t);
      }
      expect(victim).not.toBe('');
      let deaths = 0;
      const unsub = engine.bus.subscribe((e) => {
        if (e.type === 'worker' && e.state === 'down') deaths++;
      });
      const r = await engine.run(wf, undefined, { compiled: { ...compiled, tasks: poisoned } }).result;
      unsub();
      expect(r.status).toBe('failed');
      expect(r.error).toContain(`poison task: task ${victim} was running each of the ${MAX_CRASHES} times a worker process died`);
      expect(r.errorNode).toBe('total'); // ones fused into the reduction's chunk task
      expect(deaths).toBe(MAX_CRASHES);
      // The pool restarts the two workers it lost; an ordinary run then gets 8 ones summed.
      const ok = await engine.run(wf).result;
      expect(ok.status, ok.error).toBe('finished');
      expect(ok.results.total).toMatchObject({ kind: 'scalar', value: 8 });
    } finally {
      await engine.shutdown();
    }
  });
});

describe('a pool whose every worker was given up', () => {
  it('fails a new run at once, naming the workers and why they are gone', { timeout: 120_000 }, async () => {
    // No automatic restart at all: the first death of each worker gives it up.
    const engine = await engineWith(0);
    try {
      const ids = [...engine.pool.workers.keys()];
      const gone = new Promise<void>((resolve) => {
        const unsub = engine.bus.subscribe((e) => {
          if (e.type === 'worker' && e.state === 'gone' && ids.every((id) => engine.pool.gone.has(id))) {
            unsub();
            resolve();
          }
        });
      });
      for (const w of engine.pool.workers.values()) process.kill(w.pid!, 'SIGKILL');
      await gone;
      const r = await engine.run(validateWorkflow(doc)).result;
      expect(r.status).toBe('failed');
      expect(r.error).toMatch(/^no worker left to run the work.*gone: vgpu\d \(ended 1 times within 60 s .*\), vgpu\d \(ended 1 times/);
    } finally {
      await engine.shutdown();
    }
  });
});
