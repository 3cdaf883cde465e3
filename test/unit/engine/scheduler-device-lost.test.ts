/**
 * A task error with code `device` (the worker's GPU is gone): the scheduler treats it as the
 * worker dying under that task (and under everything else it runs or holds), the task runs
 * elsewhere, counted toward MAX_LOST; the run fails only when no worker is left. Other task
 * errors still fail the run naming the node.
 */
import { describe, expect, it } from 'vitest';
import type { NodeOutput, TaskDef } from '../../../common/tasks';
import { MAX_CRASHES, MAX_LOST, Scheduler, type Instruction } from '../../../main/engine/scheduler/scheduler';

const t = (key: string, deps: string[]): TaskDef => ({ key, deps, spec: { kind: 'combine', finalize: false }, resource: 'any', node: 'n', op: 'x', outBytes: 100, workBytes: 100 });

/** sum over 4 blocks, split_every 2: b0..b3 -> c0(b0,b1), c1(b2,b3) -> final(c0,c1). */
function graph(): { tasks: Map<string, TaskDef>; outputs: Record<string, NodeOutput> } {
  const tasks = new Map<string, TaskDef>();
  for (const def of [t('b0', []), t('b1', []), t('b2', []), t('b3', []), t('c0', ['b0', 'b1']), t('c1', ['b2', 'b3']), t('final', ['c0', 'c1'])]) tasks.set(def.key, def);
  return { tasks, outputs: { n: { kind: 'scalar', key: 'final', dtype: 'float64' } } };
}

const executes = (ins: Instruction[]) => ins.filter((i): i is Extract<Instruction, { type: 'execute' }> => i.type === 'execute');
const failed = (ins: Instruction[]) => ins.find((i): i is Extract<Instruction, { type: 'failed' }> => i.type === 'failed');
const LOST = 'CUDA kernel launch: unspecified launch failure (cudaErrorLaunchFailure)';

/** Finishes every placed task, and what that places, until nothing is placed. */
function drain(s: Scheduler, placed: Instruction[], cause: number): Instruction[] {
  const all: Instruction[] = [];
  const pending = executes(placed);
  while (pending.length) {
    const e = pending.shift()!;
    const res = s.handle({ type: 'task-finished', key: e.key, worker: e.worker, bytes: 8 }, cause++);
    all.push(...res);
    pending.push(...executes(res));
  }
  return all;
}

describe('scheduler: a worker whose device is lost', () => {
  it('re-runs the erring task, what the worker ran and what it held on the other workers; the run finishes', () => {
    const { tasks, outputs } = graph();
    const s = new Scheduler(tasks, outputs, () => 0);
    s.handle({ type: 'worker-added', id: 'G', kind: 'gpu', slots: 4 }, 1);
    s.handle({ type: 'worker-added', id: 'C', kind: 'cpu', slots: 0 }, 2);
    expect(executes(s.start(3)).every((e) => e.worker === 'G')).toBe(true); // G takes b0..b3
    s.handle({ type: 'task-finished', key: 'b0', worker: 'G', bytes: 8 }, 4);
    s.handle({ type: 'worker-added', id: 'V', kind: 'virtual-gpu', slots: 4 }, 5);
    const res = s.handle({ type: 'task-erred', key: 'b1', worker: 'G', message: LOST, code: 'device' }, 6);
    expect(failed(res)).toBeUndefined();
    // b1 (the erring task), b2 and b3 (running on G) and b0 (held only by G, c0 needs it) move to V.
    expect(executes(res).map((e) => e.key).sort()).toEqual(['b0', 'b1', 'b2', 'b3']);
    expect(executes(res).every((e) => e.worker === 'V')).toBe(true);
    expect(s.story('b1').map((h) => `${h.from}>${h.to}@${h.worker ?? ''}`)).toEqual(['waiting>ready@', 'ready>running@G', 'running>waiting@G', 'waiting>ready@', 'ready>running@V']);
    // A late message from G is ignored, and G gets no more work.
    expect(s.handle({ type: 'task-finished', key: 'b2', worker: 'G', bytes: 8 }, 7)).toEqual([]);
    const rest = drain(s, res, 8);
    expect(rest.some((i) => i.type === 'finished')).toBe(true);
    expect(executes(rest).some((e) => e.worker === 'G')).toBe(false);
    expect(s.stateOf('final')).toBe('memory');
  });

  it('counts each lost device toward MAX_LOST, so a task that loses every device it touches is given up', () => {
    const tasks = new Map([['only', t('only', [])]]);
    const s = new Scheduler(tasks, { n: { kind: 'scalar', key: 'only', dtype: 'float64' } }, () => 0);
    // A worker with no free slot keeps the run from failing for want of workers.
    s.handle({ type: 'worker-added', id: 'busy', kind: 'cpu', slots: 0 }, 0);
    s.start(1);
    let last: Instruction[] = [];
    for (let i = 0; i < MAX_LOST; i++) {
      const placed = executes(s.handle({ type: 'worker-added', id: `g${i}`, kind: 'gpu', slots: 1 }, 2 + 2 * i));
      expect(placed).toEqual([{ type: 'execute', worker: `g${i}`, key: 'only', deps: [] }]);
      last = s.handle({ type: 'task-erred', key: 'only', worker: `g${i}`, message: LOST, code: 'device' }, 3 + 2 * i);
      if (i < MAX_LOST - 1) expect(failed(last)).toBeUndefined();
    }
    expect(failed(last)).toMatchObject({ error: `node 'n': task only lost its worker ${MAX_LOST} times; giving up`, node: 'n', key: 'only' });
    expect(s.stateOf('only')).toBe('erred');
  });

  it('fails the run, naming the gone workers, when no worker is left; waits while one is only restarting', () => {
    const { tasks, outputs } = graph();
    const s = new Scheduler(tasks, outputs, () => 0);
    s.handle({ type: 'worker-added', id: 'G', kind: 'gpu', slots: 4 }, 1);
    s.handle({ type: 'worker-added', id: 'C', kind: 'cpu', slots: 0 }, 2);
    s.start(3);
    // C died and is restarting: the run waits for it even after G's device is lost.
    expect(failed(s.handle({ type: 'worker-removed', id: 'C', reason: 'killed' }, 4))).toBeUndefined();
    expect(failed(s.handle({ type: 'task-erred', key: 'b0', worker: 'G', message: LOST, code: 'device' }, 5))).toBeUndefined();
    expect(s.stateOf('b0')).toBe('ready');
    // Then C is gone too (its GPU no longer listed): nothing can run the rest.
    const res = s.handle({ type: 'worker-removed', id: 'C', reason: 'GPU GPU-1 is no longer listed by nvidia-smi', gone: true }, 6);
    const f = failed(res);
    expect(f?.error).toBe(`no worker left to run the work (node 'n'): gone: G (device lost: ${LOST}), C (GPU GPU-1 is no longer listed by nvidia-smi)`);
    expect(f?.node).toBe('n');
    expect(s.stateOf('final')).toBe('erred');
  });

  it('still fails the run naming the node on an ordinary kernel error or a memory refusal', () => {
    for (const code of [undefined, 'memory'] as const) {
      const { tasks, outputs } = graph();
      const s = new Scheduler(tasks, outputs, () => 0);
      s.handle({ type: 'worker-added', id: 'G', kind: 'gpu', slots: 4 }, 1);
      s.handle({ type: 'worker-added', id: 'V', kind: 'virtual-gpu', slots: 4 }, 2);
      s.start(3);
      const worker = s.story('b2').at(-1)!.worker!;
      const msg = 'CUDA kernel launch: invalid argument (cudaErrorInvalidValue)';
      expect(failed(s.handle({ type: 'task-erred', key: 'b2', worker, message: msg, code }, 4))).toMatchObject({ error: `node 'n': task b2 failed on ${worker}: ${msg}`, node: 'n', key: 'b2' });
    }
  });
});

describe('scheduler: a poison task (issue 29 item 7)', () => {
  it(`fails the run when a worker process died under the same task ${MAX_CRASHES} times, naming it; not before`, () => {
    const tasks = new Map([['only', t('only', [])]]);
    const s = new Scheduler(tasks, { n: { kind: 'scalar', key: 'only', dtype: 'float64' } }, () => 0);
    s.handle({ type: 'worker-added', id: 'A', kind: 'cpu', slots: 1 }, 1);
    s.handle({ type: 'worker-added', id: 'B', kind: 'cpu', slots: 1 }, 2);
    const first = executes(s.start(3))[0];
    // The first death sends it to the other worker.
    const again = s.handle({ type: 'worker-removed', id: first.worker, reason: 'crashed', fault: true }, 4);
    expect(failed(again)).toBeUndefined();
    const second = executes(again)[0];
    expect(second.key).toBe('only');
    expect(second.worker).not.toBe(first.worker);
    // The second: it goes to no third worker, even one that has just come back.
    s.handle({ type: 'worker-added', id: first.worker, kind: 'cpu', slots: 1 }, 5);
    const res = s.handle({ type: 'worker-removed', id: second.worker, reason: 'crashed', fault: true }, 6);
    expect(executes(res)).toEqual([]);
    expect(failed(res)).toMatchObject({ error: `node 'n': poison task: task only was running each of the ${MAX_CRASHES} times a worker process died under it (last: ${second.worker}, crashed); not sent to another worker`, key: 'only', node: 'n' });
    expect(s.stateOf('only')).toBe('erred');
  });

  it('a device lost, or a worker killed from outside (SIGKILL), under a task is not counted as the task killing its worker', () => {
    const tasks = new Map([['only', t('only', [])]]);
    const s = new Scheduler(tasks, { n: { kind: 'scalar', key: 'only', dtype: 'float64' } }, () => 0);
    s.handle({ type: 'worker-added', id: 'busy', kind: 'cpu', slots: 0 }, 0);
    s.start(1);
    for (let i = 0; i < 3; i++) {
      s.handle({ type: 'worker-added', id: `g${i}`, kind: 'gpu', slots: 1 }, 2 + 2 * i);
      expect(failed(s.handle({ type: 'task-erred', key: 'only', worker: `g${i}`, message: LOST, code: 'device' }, 3 + 2 * i))).toBeUndefined();
    }
    for (let i = 0; i < 3; i++) {
      expect(executes(s.handle({ type: 'worker-added', id: `k${i}`, kind: 'gpu', slots: 1 }, 10 + 2 * i))).toHaveLength(1);
      expect(failed(s.handle({ type: 'worker-removed', id: `k${i}`, reason: 'killed' }, 11 + 2 * i))).toBeUndefined();
    }
  });

  it('a run that starts with every worker gone fails at once, naming each; one restarting keeps it waiting', () => {
    const { tasks, outputs } = graph();
    const s = new Scheduler(tasks, outputs, () => 0);
    const gone = [
      { id: 'vgpu0', reason: 'ended 6 times within 60 s' },
      { id: 'vgpu1', reason: 'ended 6 times within 60 s' },
    ];
    const res = s.handle({ type: 'workers-gone', workers: gone }, 1);
    expect(failed(res)?.error).toBe('no worker left to run the work: gone: vgpu0 (ended 6 times within 60 s), vgpu1 (ended 6 times within 60 s)');
    const waiting = new Scheduler(tasks, outputs, () => 0);
    waiting.handle({ type: 'worker-removed', id: 'cpu0', reason: 'restarting' }, 1);
    expect(failed(waiting.handle({ type: 'workers-gone', workers: gone }, 2))).toBeUndefined();
    expect(failed(waiting.start(3))).toBeUndefined();
  });
});
