// Tasks marked `deal` (TaskDef.deal: a search's trials, or any op's) while GPU workers are still
// starting (main/engine/scheduler/placement.ts heldFor): dealt round robin over the grid, the
// starting workers' deal held for them, a lone task run at once, unmarked tasks never held. Completions are simulated in the order
// tasks were placed, with no processes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileWorkflow, type Compiled } from '../../../main/engine/compile/compile';
import { heldFor } from '../../../main/engine/scheduler/placement';
import { Scheduler, type Instruction, type Stimulus } from '../../../main/engine/scheduler/scheduler';
import { validateWorkflow } from '../../../main/engine/validate';
import type { Resource, TaskDef } from '../../../common/tasks';

type Exec = Extract<Instruction, { type: 'execute' }>;
const executes = (ins: Instruction[]) => ins.filter((i): i is Exec => i.type === 'execute');

describe('heldFor', () => {
  const grid = ['gpu0', 'gpu1', 'gpu2'].map((id) => ({ id, kind: 'gpu' as const }));
  const starting = (w: { id: string }) => w.id === 'gpu2';

  it('deals round robin over the grid and holds only what falls to a starting worker', () => {
    // Hand-dealt: seq 0 -> gpu0, 1 -> gpu1, 2 -> gpu2 (starting), 5 -> gpu2.
    expect([0, 1, 2, 3, 4, 5].map((seq) => heldFor(seq, 12, grid, starting)?.id ?? null)).toEqual([null, null, 'gpu2', null, null, 'gpu2']);
  });

  it('holds nothing for a node with fewer trials than the grid has workers, nor on a grid of one', () => {
    expect(heldFor(2, 1, grid, starting)).toBeNull();
    expect(heldFor(2, 2, grid, starting)).toBeNull();
    expect(heldFor(2, 3, grid, starting)?.id).toBe('gpu2');
    expect(heldFor(0, 12, [grid[2]!], starting)).toBeNull();
  });
});

/**
 * A run of `graph` begun on gpu0 with the `late` GPU workers still starting: what it places runs to
 * the end, each task finishing on its worker; `step` feeds another stimulus the same way.
 */
function begin(graph: Pick<Compiled, 'tasks' | 'outputs'>, late: string[]) {
  const s = new Scheduler(graph.tasks, graph.outputs, () => 0);
  let cause = 1;
  const ranOn = new Map<string, string>();
  const drain = (ins: Instruction[]) => {
    const queue = executes(ins);
    while (queue.length) {
      const e = queue.shift()!;
      ranOn.set(e.key, e.worker);
      queue.push(...executes(s.handle({ type: 'task-finished', key: e.key, worker: e.worker, bytes: graph.tasks.get(e.key)!.outBytes }, cause++)));
    }
  };
  s.handle({ type: 'worker-added', id: 'gpu0', kind: 'gpu', slots: 2 }, cause++);
  for (const id of late) s.handle({ type: 'worker-starting', id, kind: 'gpu' }, cause++);
  drain(s.start(cause++));
  return { ranOn, step: (stimulus: Stimulus) => drain(s.handle(stimulus, cause++)) };
}

describe('a search started on the first ready GPU worker', () => {
  const doc = JSON.parse(readFileSync(new URL('../../../examples/tuning-random-search.json', import.meta.url), 'utf8'));
  const c = compileWorkflow(validateWorkflow(doc, { trials: 12 }));
  const trials = [...c.tasks.values()].filter((t) => t.spec.kind === 'trial' && t.spec.op === 'search-trial').map((t) => t.key);

  it('holds the starting workers’ share of the trials for them; a worker that gives up hands its share back', () => {
    expect(trials.length).toBe(12);
    expect(trials.every((k) => c.tasks.get(k)!.place === undefined)).toBe(true);
    const { ranOn, step } = begin(c, ['gpu1', 'gpu2']);
    // gpu0 ran everything it could: one trial in three (4 of 12, round robin over three workers).
    const trialsOn = (w: string) => trials.filter((k) => ranOn.get(k) === w).length;
    expect(trialsOn('gpu0')).toBe(4);
    expect(trials.filter((k) => !ranOn.has(k)).length).toBe(8);
    // gpu1 comes: its four trials were waiting for it.
    step({ type: 'worker-added', id: 'gpu1', kind: 'gpu', slots: 2 });
    expect(trialsOn('gpu1')).toBe(4);
    expect(trials.filter((k) => !ranOn.has(k)).length).toBe(4);
    // gpu2 gives up: what was held for it goes to the ready workers and the run ends.
    step({ type: 'worker-removed', id: 'gpu2', reason: 'no CUDA context', gone: true });
    expect(trials.filter((k) => !ranOn.has(k))).toEqual([]);
    expect(trialsOn('gpu0') + trialsOn('gpu1')).toBe(12);
    expect(ranOn.size).toBe(c.tasks.size);
  });

  it('holds no dataframe partition: they are short, and run at once on the ready worker', () => {
    const csv = compileWorkflow(validateWorkflow(JSON.parse(readFileSync(new URL('../../../examples/csv-stations.json', import.meta.url), 'utf8'))));
    // Nodes with a task per partition and no place: what a trial-agnostic hold would deal out.
    const unplaced = [...csv.tasks.values()].filter((t) => t.spec.kind === 'df' && !t.place);
    expect(unplaced.length).toBeGreaterThanOrEqual(9);
    expect(begin(csv, ['gpu1', 'gpu2']).ranOn.size).toBe(csv.tasks.size);
  });

  it('with every worker ready, holds nothing: one worker takes the trials as before', () => {
    expect(begin(c, []).ranOn.size).toBe(c.tasks.size);
  });
});

describe('the hold follows TaskDef.deal, not the task kind', () => {
  // Six tasks of one node with no place, no inputs, and one output node reading them all.
  function graph(spec: TaskDef['spec'], resource: Resource, deal: boolean): Pick<Compiled, 'tasks' | 'outputs'> {
    const tasks = new Map<string, TaskDef>();
    for (let i = 0; i < 6; i++) {
      const key = `part-${i}`;
      tasks.set(key, { key, deps: [], spec, resource, node: 'n', op: 'part', outBytes: 8, workBytes: 8, ...(deal ? { deal: true as const } : {}) });
    }
    return { tasks, outputs: { n: { kind: 'values', keys: [...tasks.keys()] } } };
  }
  const onGpu0 = (r: { ranOn: Map<string, string> }) => [...r.ranOn.values()].filter((w) => w === 'gpu0').length;

  it('a non-trial op that sets deal has its tasks dealt and held like trials (hand count: 2 of 6 on gpu0, 2 more when gpu1 comes)', () => {
    const g = graph({ kind: 'array-op', op: 'long-fit', params: {} }, 'gpu', true);
    const run = begin(g, ['gpu1', 'gpu2']);
    // Dealt over gpu0, gpu1, gpu2: seq 0, 3 to gpu0; 1, 4 held for gpu1; 2, 5 for gpu2.
    expect(onGpu0(run)).toBe(2);
    expect(run.ranOn.size).toBe(2);
    run.step({ type: 'worker-added', id: 'gpu1', kind: 'gpu', slots: 2 });
    expect([...run.ranOn.values()].filter((w) => w === 'gpu1').length).toBe(2);
    run.step({ type: 'worker-removed', id: 'gpu2', reason: 'no CUDA context', gone: true });
    expect(run.ranOn.size).toBe(6);
  });

  it('the same tasks without deal run at once on the ready worker, GPU work included; a trial without deal too', () => {
    for (const [spec, resource] of [
      [{ kind: 'array-op', op: 'long-fit', params: {} }, 'gpu'],
      [{ kind: 'program', program: { dtype: 'float64', shape: [2], expr: { kind: 'leaf', leaf: { kind: 'fill', value: 1 } } } }, 'gpu'],
      [{ kind: 'trial', op: 'predict-table', params: {} }, 'any'],
    ] as const satisfies ReadonlyArray<readonly [TaskDef['spec'], Resource]>) {
      const run = begin(graph(spec, resource, false), ['gpu1', 'gpu2']);
      expect(onGpu0(run)).toBe(6);
    }
  });
});
