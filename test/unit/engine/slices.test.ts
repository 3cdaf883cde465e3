/**
 * Cooperative compile and scheduler setup (main/engine/slices.ts, defect D8): the sliced forms
 * build exactly what the synchronous ones build, they do yield throughout (so a 100 000-task graph
 * never runs as one long call), and the slice driver lets the event loop run between slices.
 */
import { describe, expect, it } from 'vitest';
import { compileSteps, compileWorkflow, compileWorkflowAsync } from '../../../main/engine/compile/compile';
import { Scheduler, type Instruction } from '../../../main/engine/scheduler/scheduler';
import { runInSlices, runToEnd, YIELD_EVERY, type Steps } from '../../../main/engine/slices';
import { validateWorkflow } from '../../../main/engine/validate';
import { seedDoc } from '../../reliability/helpers';

const wf = () => validateWorkflow(seedDoc(), { N: 200, chunks: 10 });

/** Drives work to its end, counting the yields. */
function countYields<T>(steps: Steps<T>): { value: T; yields: number } {
  let yields = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { value: r.value, yields };
    yields++;
  }
}

/** A run of the scheduler with two workers, every execute finishing in order: all instructions. */
function drive(s: Scheduler, start: (cause: number) => Instruction[]): Instruction[] {
  const all: Instruction[] = [];
  let seq = 1;
  const queue: Array<{ key: string; worker: string }> = [];
  const take = (ins: Instruction[]) => {
    for (const i of ins) {
      all.push(i);
      if (i.type === 'execute') queue.push({ key: i.key, worker: i.worker });
    }
  };
  take(s.handle({ type: 'worker-added', id: 'a', kind: 'virtual-gpu', slots: 3 }, seq++));
  take(s.handle({ type: 'worker-added', id: 'b', kind: 'cpu', slots: 2 }, seq++));
  take(start(seq++));
  while (queue.length) {
    const { key, worker } = queue.shift()!;
    take(s.handle({ type: 'task-finished', key, worker, bytes: 8 }, seq++));
  }
  return all;
}

describe('cooperative compile and scheduler setup', () => {
  it('compiles the same graph in slices as in one call, yielding at least once per task', async () => {
    const sync = compileWorkflow(wf());
    const sliced = await compileWorkflowAsync(wf(), {});
    // seed N=200 in 10x10 chunks: 20x20 blocks -> 400 reduction tasks + the combine tree (8-way).
    expect(sync.tasks.size).toBe(400 + 50 + 7 + 1);
    expect([...sliced.tasks.entries()]).toEqual([...sync.tasks.entries()]);
    expect(sliced.outputs).toEqual(sync.outputs);
    const { yields } = countYields(compileSteps(wf()));
    expect(yields).toBeGreaterThanOrEqual(sync.tasks.size);
  });

  it('a scheduler built and started in slices schedules exactly as one built at once', () => {
    const c = compileWorkflow(wf());
    const a = new Scheduler(c.tasks, c.outputs, () => 0);
    const { value: b, yields } = countYields(Scheduler.create(c.tasks, c.outputs, () => 0));
    expect(yields).toBeGreaterThanOrEqual(Math.floor(c.tasks.size / YIELD_EVERY));
    const viaStart = drive(a, (cause) => a.start(cause));
    const viaSteps = drive(b, (cause) => {
      const batches: Instruction[] = [];
      runToEnd(b.startSteps(cause, (batch) => batches.push(...batch)));
      return batches;
    });
    expect(viaSteps).toEqual(viaStart);
    expect(viaStart.at(-1)).toEqual({ type: 'finished' });
  });

  it('runInSlices lets the event loop run between slices', async () => {
    const order: string[] = [];
    function* work(): Steps<number> {
      order.push('a');
      yield;
      order.push('b');
      yield;
      order.push('c');
      return 7;
    }
    // A slice of 0 ms gives the loop back after every step.
    const done = runInSlices(work(), 0);
    setImmediate(() => order.push('loop'));
    expect(await done).toBe(7);
    expect(order.indexOf('loop')).toBeGreaterThan(order.indexOf('a'));
    expect(order.indexOf('loop')).toBeLessThan(order.indexOf('c'));
  });
});
