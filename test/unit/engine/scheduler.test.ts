import { describe, expect, it } from 'vitest';
import type { NodeOutput, TaskDef } from '../../../common/tasks';
import { Scheduler, type Instruction } from '../../../main/engine/scheduler/scheduler';
import { transition, TransitionError } from '../../../main/engine/scheduler/transitions';

/** sum over 4 blocks, split_every 2: b0..b3 -> c0(b0,b1), c1(b2,b3) -> final(c0,c1). */
function graph(): { tasks: Map<string, TaskDef>; outputs: Record<string, NodeOutput> } {
  const t = (key: string, deps: string[]): TaskDef => ({ key, deps, spec: { kind: 'combine', finalize: false }, resource: 'any', node: 'n', op: 'x', outBytes: 100, workBytes: 100 });
  const tasks = new Map<string, TaskDef>();
  for (const def of [t('b0', []), t('b1', []), t('b2', []), t('b3', []), t('c0', ['b0', 'b1']), t('c1', ['b2', 'b3']), t('final', ['c0', 'c1'])]) tasks.set(def.key, def);
  return { tasks, outputs: { n: { kind: 'scalar', key: 'final', dtype: 'float64' } } };
}

const executes = (ins: Instruction[]) => ins.filter((i): i is Extract<Instruction, { type: 'execute' }> => i.type === 'execute');

describe('scheduler', () => {
  it('places by priority and slots, releases inputs once consumed, and finishes', () => {
    const { tasks, outputs } = graph();
    const s = new Scheduler(tasks, outputs, () => 0);
    s.handle({ type: 'worker-added', id: 'A', kind: 'cpu', slots: 1 }, 1);
    s.handle({ type: 'worker-added', id: 'B', kind: 'virtual-gpu', slots: 1 }, 2);
    const first = executes(s.start(3));
    expect(first.map((e) => e.key).sort()).toEqual(['b0', 'b1']);
    let out = executes(s.handle({ type: 'task-finished', key: 'b0', worker: first.find((e) => e.key === 'b0')!.worker, bytes: 8 }, 4));
    out = out.concat(executes(s.handle({ type: 'task-finished', key: 'b1', worker: first.find((e) => e.key === 'b1')!.worker, bytes: 8 }, 5)));
    expect(s.stateOf('c0')).toMatch(/ready|running/);
    // Run everything else to completion, always finishing what was placed.
    const pending = [...out];
    const all: Instruction[] = [];
    let cause = 6;
    while (pending.length) {
      const e = pending.shift()!;
      const res = s.handle({ type: 'task-finished', key: e.key, worker: e.worker, bytes: 8 }, cause++);
      all.push(...res);
      pending.push(...executes(res));
    }
    expect(all.some((i) => i.type === 'finished')).toBe(true);
    expect(s.stateOf('b0')).toBe('done');
    expect(s.stateOf('final')).toBe('memory');
    const released = all.filter((i) => i.type === 'release').flatMap((i) => (i.type === 'release' ? i.keys : []));
    // Each key once per worker holding it: where it was made, and where it was fetched to.
    expect([...new Set(released)].sort()).toEqual(['b0', 'b1', 'b2', 'b3', 'c0', 'c1']);
  });

  it('prefers the worker that holds the inputs', () => {
    const { tasks, outputs } = graph();
    const s = new Scheduler(tasks, outputs, () => 0);
    s.handle({ type: 'worker-added', id: 'A', kind: 'cpu', slots: 4 }, 1);
    s.start(2); // A takes all four blocks
    s.handle({ type: 'worker-added', id: 'B', kind: 'cpu', slots: 4 }, 3);
    s.handle({ type: 'task-finished', key: 'b0', worker: 'A', bytes: 8 }, 4);
    const res = executes(s.handle({ type: 'task-finished', key: 'b1', worker: 'A', bytes: 8 }, 5));
    expect(res).toEqual([{ type: 'execute', worker: 'A', key: 'c0', deps: [{ key: 'b0', holder: null }, { key: 'b1', holder: null }] }]);
  });

  it('recomputes what a dead worker held and re-runs what it was running', () => {
    const { tasks, outputs } = graph();
    const s = new Scheduler(tasks, outputs, () => 0);
    s.handle({ type: 'worker-added', id: 'A', kind: 'cpu', slots: 4 }, 1);
    s.handle({ type: 'worker-added', id: 'B', kind: 'cpu', slots: 0 }, 2);
    s.start(3);
    s.handle({ type: 'task-finished', key: 'b0', worker: 'A', bytes: 8 }, 4);
    expect(s.stateOf('b0')).toBe('memory');
    s.handle({ type: 'worker-added', id: 'C', kind: 'cpu', slots: 4 }, 5);
    const res = s.handle({ type: 'worker-removed', id: 'A', reason: 'killed' }, 6);
    // b0's output was only on A and c0 still needs it; b1..b3 were running on A.
    const placed = executes(res).map((e) => e.key).sort();
    expect(placed).toEqual(['b0', 'b1', 'b2', 'b3']);
    expect(executes(res).every((e) => e.worker === 'C')).toBe(true);
    expect(s.story('b0').map((h) => `${h.from}>${h.to}`)).toEqual(['waiting>ready', 'ready>running', 'running>memory', 'memory>waiting', 'waiting>ready', 'ready>running']);
    // A late message from the dead worker is ignored.
    expect(s.handle({ type: 'task-finished', key: 'b1', worker: 'A', bytes: 8 }, 7)).toEqual([]);
  });

  it('fails the run with the node named when a task errs, and on cancel', () => {
    const { tasks, outputs } = graph();
    const s = new Scheduler(tasks, outputs, () => 0);
    s.handle({ type: 'worker-added', id: 'A', kind: 'cpu', slots: 4 }, 1);
    s.start(2);
    const res = s.handle({ type: 'task-erred', key: 'b2', worker: 'A', message: 'boom' }, 3);
    expect(res.find((i) => i.type === 'failed')).toMatchObject({ type: 'failed', error: "node 'n': task b2 failed on A: boom", node: 'n' });
    expect(s.stateOf('final')).toBe('erred');
    const s2 = new Scheduler(graph().tasks, outputs, () => 0);
    s2.handle({ type: 'worker-added', id: 'A', kind: 'cpu', slots: 1 }, 1);
    s2.start(2);
    expect(s2.handle({ type: 'cancel', reason: 'user' }, 3).find((i) => i.type === 'failed')).toMatchObject({ cancelled: true });
  });

  it('keeps gpu-only work off CPU workers', () => {
    const { tasks, outputs } = graph();
    for (const t of tasks.values()) t.resource = 'gpu';
    const s = new Scheduler(tasks, outputs, () => 0);
    s.handle({ type: 'worker-added', id: 'cpu0', kind: 'cpu', slots: 4 }, 1);
    s.handle({ type: 'worker-added', id: 'vgpu0', kind: 'virtual-gpu', slots: 4 }, 2);
    expect(new Set(executes(s.start(3)).map((e) => e.worker))).toEqual(new Set(['vgpu0']));
  });

  it('throws with the history on a transition outside the table', () => {
    expect(() => transition('k', 'done', 'running', [{ from: 'memory', to: 'done', cause: 9, t: 0 }])).toThrow(TransitionError);
    expect(() => transition('k', 'done', 'running', [])).toThrow(/task k: no transition done -> running/);
  });

  it('names the task and tells its story when a pair is not in the transition table', () => {
    const story = [
      { from: 'waiting' as const, to: 'ready' as const, cause: 1, t: 0 },
      { from: 'ready' as const, to: 'erred' as const, cause: 4, t: 0 },
    ];
    expect(() => transition('matmul-2', 'erred', 'ready', story)).toThrow('task matmul-2: no transition erred -> ready; history: waiting->ready@1, ready->erred@4');
  });

  it('gives each transition its effect from the one table', () => {
    expect(transition('k', 'waiting', 'ready', [])).toEqual({ enqueue: true, remaining: 0 });
    expect(transition('k', 'running', 'ready', [])).toEqual({ enqueue: true, remaining: 0 });
    expect(transition('k', 'running', 'memory', [])).toEqual({ enqueue: false, remaining: -1 });
    expect(transition('k', 'memory', 'waiting', [])).toEqual({ enqueue: false, remaining: 1 });
    expect(transition('k', 'done', 'waiting', [])).toEqual({ enqueue: false, remaining: 1 });
    expect(transition('k', 'ready', 'running', [])).toEqual({ enqueue: false, remaining: 0 });
  });
});
