// Owner-computes placement (main/engine/scheduler/placement.ts) and fetched copies: matmul runs
// SUMMA-like over two GPU workers and moves each remote A block once; TSQR keeps a row block, its
// QR and its recombination on one worker; an owner's busy slots park its work unless another
// worker stands idle; a fetched input counts as local for the next task and is released with it.
// Completions are simulated in the order tasks were placed, with no processes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NodeOutput, TaskDef } from '../../../common/tasks';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { ownerOf, processGrid } from '../../../main/engine/scheduler/placement';
import { Scheduler, type Instruction } from '../../../main/engine/scheduler/scheduler';
import { validateWorkflow } from '../../../main/engine/validate';

type Exec = Extract<Instruction, { type: 'execute' }>;
const executes = (ins: Instruction[]) => ins.filter((i): i is Exec => i.type === 'execute');

/** Runs a graph to the end, finishing tasks in the order they were placed. */
function simulate(tasks: Map<string, TaskDef>, outputs: Record<string, NodeOutput>, workers: Array<{ id: string; slots: number }>) {
  const s = new Scheduler(tasks, outputs, () => 0);
  let cause = 1;
  for (const w of workers) s.handle({ type: 'worker-added', id: w.id, kind: 'gpu', slots: w.slots }, cause++);
  const queue = executes(s.start(cause++));
  const ranOn = new Map<string, string>();
  // (worker, key) pairs fetched: what the workers move, each fetched copy being kept for later tasks.
  const fetched = new Set<string>();
  const all: Instruction[] = [];
  while (queue.length) {
    const e = queue.shift()!;
    ranOn.set(e.key, e.worker);
    for (const d of e.deps) if (d.holder !== null) fetched.add(`${e.worker} ${d.key}`);
    const res = s.handle({ type: 'task-finished', key: e.key, worker: e.worker, bytes: tasks.get(e.key)!.outBytes }, cause++);
    all.push(...res);
    queue.push(...executes(res));
  }
  return { s, ranOn, fetched, all };
}

const matmulDoc = JSON.parse(readFileSync(new URL('../../gpu/ipc-matmul.json', import.meta.url), 'utf8'));

describe('owner-computes placement', () => {
  it('lays P workers out as the squarest process grid and owns blocks cyclically', () => {
    expect([1, 2, 3, 4, 6, 8, 9].map(processGrid)).toEqual([[1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [2, 4], [3, 3]]);
    const ws = ['w0', 'w1', 'w2', 'w3'];
    // 2 x 2: block (i, j) -> worker (i mod 2) * 2 + (j mod 2).
    expect([[0, 0], [0, 1], [1, 0], [1, 1], [2, 3]].map((g) => ownerOf({ grid: g as [number, number] }, ws))).toEqual(['w0', 'w1', 'w2', 'w3', 'w1']);
    expect([0, 1, 2, 3, 4, 5].map((i) => ownerOf({ index: i }, ws.slice(0, 3)))).toEqual(['w0', 'w1', 'w2', 'w0', 'w1', 'w2']);
    expect(ownerOf({ grid: [1, 1] }, ['only'])).toBeNull();
  });

  it('runs a 4 x 4 block matmul SUMMA-like on two GPU workers, moving each remote A block once and no B block', () => {
    const c = compileWorkflow(validateWorkflow(matmulDoc, { N: 1024, chunks: 256 }));
    const placed = [...c.tasks.values()].filter((t) => t.place);
    expect(placed.length).toBe(48); // 16 A, 16 B and 16 C blocks
    const { ranOn, fetched } = simulate(c.tasks, c.outputs, [{ id: 'gpu0', slots: 16 }, { id: 'gpu1', slots: 16 }]);
    // 1 x 2 grid: block (i, j) belongs to gpu(j mod 2).
    for (const t of placed) expect([t.key, ranOn.get(t.key)]).toEqual([t.key, `gpu${'grid' in t.place! ? t.place.grid[1] % 2 : -1}`]);
    // Operand blocks moved (the output's summary tasks move their own small partials).
    const moved = [...fetched].map((f) => f.split(' ')[1]).filter((k) => /^c\/[ab]\(/.test(k));
    expect(moved.filter((k) => k.startsWith('c/b(')).length).toBe(0);
    expect(moved.length).toBe(16); // each worker fetches the 8 A blocks of the other parity, once
    expect(new Set(moved).size).toBe(16);
    expect(placed.filter((t) => t.key.startsWith('c/matmul(') && ranOn.get(t.key) === 'gpu0').length).toBe(8);
  });

  it('keeps each TSQR row block, its QR and its recombination on one worker', () => {
    const doc = {
      format: 'gpuflow.workflow/1',
      nodes: [
        { id: 'x', op: 'random_normal', params: { shape: [400, 10], chunks: [100, 10], seed: 3 } },
        { id: 'q', op: 'qr', params: {} },
      ],
      edges: [{ source: 'x', sourcePort: 'out', target: 'q', targetPort: 'x' }],
    };
    const c = compileWorkflow(validateWorkflow(doc));
    const byIndex = new Map<number, string[]>();
    for (const t of c.tasks.values()) if (t.place && 'index' in t.place) byIndex.set(t.place.index, [...(byIndex.get(t.place.index) ?? []), t.key]);
    expect([...byIndex.keys()].sort()).toEqual([0, 1, 2, 3]);
    const { ranOn } = simulate(c.tasks, c.outputs, [{ id: 'gpu0', slots: 4 }, { id: 'gpu1', slots: 4 }]);
    for (const [i, keys] of byIndex) {
      expect(keys.length).toBe(3); // the row block, its QR, its recombination
      expect(keys.map((k) => ranOn.get(k))).toEqual(keys.map(() => `gpu${i % 2}`));
    }
  });

  it('parks work for a busy owner; an idle worker takes it once more than a round of slots waits', () => {
    const t = (key: string): TaskDef => ({ key, deps: [], spec: { kind: 'combine', finalize: false }, resource: 'any', node: 'n', op: 'x', outBytes: 8, workBytes: 8, place: { grid: [0, 0] } });
    const tasks = new Map(['t0', 't1', 't2', 't3'].map((k) => [k, t(k)] as const));
    const outputs: Record<string, NodeOutput> = { n: { kind: 'values', keys: ['t0', 't1', 't2', 't3'] } };
    const s = new Scheduler(tasks, outputs, () => 0);
    s.handle({ type: 'worker-added', id: 'gpu0', kind: 'gpu', slots: 1 }, 1);
    s.handle({ type: 'worker-added', id: 'gpu1', kind: 'gpu', slots: 1 }, 2);
    const first = executes(s.start(3)).map((e) => [e.key, e.worker]);
    // t0 to its owner gpu0; t1 waits for it; with t1 waiting (a round of gpu0's one slot), the
    // idle gpu1 takes t2; t3 waits (gpu1 is busy now).
    expect(first).toEqual([['t0', 'gpu0'], ['t2', 'gpu1']]);
    expect([s.stateOf('t1'), s.stateOf('t3')]).toEqual(['ready', 'ready']);
    // gpu1 finishes and stands idle while two wait for gpu0: it takes one, gpu0 the other.
    const stolen = executes(s.handle({ type: 'task-finished', key: 't2', worker: 'gpu1', bytes: 8 }, 4));
    expect(stolen.map((e) => e.worker)).toEqual(['gpu1']);
    const own = executes(s.handle({ type: 'task-finished', key: 't0', worker: 'gpu0', bytes: 8 }, 5));
    expect(own.map((e) => e.worker)).toEqual(['gpu0']);
    expect([stolen[0].key, own[0].key].sort()).toEqual(['t1', 't3']);
  });

  it('puts parked work back in the ready queue when its owner leaves', () => {
    const t = (key: string): TaskDef => ({ key, deps: [], spec: { kind: 'combine', finalize: false }, resource: 'any', node: 'n', op: 'x', outBytes: 8, workBytes: 8, place: { grid: [0, 1] } });
    const tasks = new Map(['t0', 't1', 't2'].map((k) => [k, t(k)] as const));
    const s = new Scheduler(tasks, { n: { kind: 'values', keys: ['t0', 't1', 't2'] } }, () => 0);
    s.handle({ type: 'worker-added', id: 'gpu0', kind: 'gpu', slots: 1 }, 1);
    s.handle({ type: 'worker-added', id: 'gpu1', kind: 'gpu', slots: 1 }, 2);
    expect(executes(s.start(3)).map((e) => [e.key, e.worker])).toEqual([['t0', 'gpu1'], ['t2', 'gpu0']]);
    // t1 is parked on gpu1; gpu1 dies: t0 and t1 run on gpu0, the one worker left.
    expect(executes(s.handle({ type: 'worker-removed', id: 'gpu1', reason: 'test' }, 4))).toEqual([]);
    expect([s.stateOf('t0'), s.stateOf('t1')]).toEqual(['ready', 'ready']);
    const next = executes(s.handle({ type: 'task-finished', key: 't2', worker: 'gpu0', bytes: 8 }, 5));
    expect(next.map((e) => e.worker)).toEqual(['gpu0']);
    const last = executes(s.handle({ type: 'task-finished', key: next[0].key, worker: 'gpu0', bytes: 8 }, 6));
    expect(last.map((e) => e.worker)).toEqual(['gpu0']);
    expect([next[0].key, last[0].key].sort()).toEqual(['t0', 't1']);
  });
});

describe('fetched copies', () => {
  it('count as local for the next task, and are released with the input', () => {
    const t = (key: string, deps: string[]): TaskDef => ({ key, deps, spec: { kind: 'combine', finalize: false }, resource: 'any', node: 'n', op: 'x', outBytes: 100, workBytes: 100 });
    const tasks = new Map([t('x', []), t('y', []), t('u', ['x', 'y']), t('v', ['u', 'y'])].map((d) => [d.key, d] as const));
    const s = new Scheduler(tasks, { n: { kind: 'scalar', key: 'v', dtype: 'float64' } }, () => 0);
    s.handle({ type: 'worker-added', id: 'A', kind: 'cpu', slots: 1 }, 1);
    s.handle({ type: 'worker-added', id: 'B', kind: 'cpu', slots: 1 }, 2);
    expect(executes(s.start(3)).map((e) => [e.key, e.worker])).toEqual([['x', 'A'], ['y', 'B']]);
    s.handle({ type: 'task-finished', key: 'x', worker: 'A', bytes: 100 }, 4);
    const u = executes(s.handle({ type: 'task-finished', key: 'y', worker: 'B', bytes: 100 }, 5));
    expect(u).toEqual([{ type: 'execute', worker: 'A', key: 'u', deps: [{ key: 'x', holder: null }, { key: 'y', holder: 'B' }] }]);
    // A keeps the y it fetched: v runs there with everything local.
    const afterU = s.handle({ type: 'task-finished', key: 'u', worker: 'A', bytes: 100 }, 6);
    expect(executes(afterU)).toEqual([{ type: 'execute', worker: 'A', key: 'v', deps: [{ key: 'u', holder: null }, { key: 'y', holder: null }] }]);
    const afterV = s.handle({ type: 'task-finished', key: 'v', worker: 'A', bytes: 100 }, 7);
    const releases = [...afterU, ...afterV].filter((i) => i.type === 'release').map((i) => (i.type === 'release' ? `${i.worker}:${i.keys.join()}` : ''));
    expect(releases.sort()).toEqual(['A:u', 'A:x', 'A:y', 'B:y']);
  });
});

describe('a run that starts before every GPU worker is ready', () => {
  // The seed workload's reduction coarsened for four GPU workers: contiguous shares of partials.
  const seed = JSON.parse(readFileSync(new URL('../../../examples/seed-benchmark.json', import.meta.url), 'utf8'));
  const c = compileWorkflow(validateWorkflow(seed, { N: 2000, chunks: 100 }), { arrayResource: 'gpu', gpuShare: { gpus: 4, taskElements: 2 ** 20 } });
  const ownerIn4 = (key: string) => {
    const p = c.tasks.get(key)!.place;
    return p && 'share' in p ? `gpu${Math.floor((p.share[0] * 4) / p.share[1])}` : null;
  };

  it('gives the ready GPU its share first, parks the starting ones’ shares for them, and lets a late one take what is left', () => {
    const shared = [...c.tasks.values()].filter((t) => t.place && 'share' in t.place);
    expect(shared.length).toBeGreaterThanOrEqual(32); // at least 8 partials a GPU
    const s = new Scheduler(c.tasks, c.outputs, () => 0);
    let cause = 1;
    s.handle({ type: 'worker-added', id: 'gpu0', kind: 'gpu', slots: 2 }, cause++);
    for (const id of ['gpu1', 'gpu2', 'gpu3']) s.handle({ type: 'worker-starting', id, kind: 'gpu' }, cause++);
    const queue = executes(s.start(cause++));
    // gpu0 starts on its own quarter, not on everyone's.
    expect(queue.map((e) => [e.worker, ownerIn4(e.key)])).toEqual(queue.map(() => ['gpu0', 'gpu0']));
    const ranOn = new Map<string, string>();
    let finishedOn0 = 0;
    let late = false;
    while (queue.length) {
      const e = queue.shift()!;
      ranOn.set(e.key, e.worker);
      queue.push(...executes(s.handle({ type: 'task-finished', key: e.key, worker: e.worker, bytes: c.tasks.get(e.key)!.outBytes }, cause++)));
      // gpu1 becomes ready once gpu0 has done a few tasks; gpu2 and gpu3 never do.
      if (e.worker === 'gpu0' && ++finishedOn0 === 4 && !late) {
        late = true;
        queue.push(...executes(s.handle({ type: 'worker-added', id: 'gpu1', kind: 'gpu', slots: 2 }, cause++)));
      }
    }
    expect(ranOn.size).toBe(c.tasks.size); // every task ran: the shares of the workers that never came were taken
    const on = (w: string) => [...ranOn].filter(([, x]) => x === w).map(([k]) => k);
    expect(on('gpu0').length).toBeGreaterThan(0);
    // The late worker took work, its own share among it (parked for it until it came).
    expect(on('gpu1').length).toBeGreaterThan(0);
    expect(on('gpu1').filter((k) => ownerIn4(k) === 'gpu1').length).toBeGreaterThan(0);
    expect([...ranOn.values()].every((w) => w === 'gpu0' || w === 'gpu1')).toBe(true);
  });

  it('waits for a starting GPU worker rather than give GPU work to a CPU worker', () => {
    const s = new Scheduler(c.tasks, c.outputs, () => 0);
    s.handle({ type: 'worker-added', id: 'cpu0', kind: 'cpu', slots: 2 }, 1);
    s.handle({ type: 'worker-starting', id: 'gpu0', kind: 'gpu' }, 2);
    expect(executes(s.start(3))).toEqual([]);
    const first = executes(s.handle({ type: 'worker-added', id: 'gpu0', kind: 'gpu', slots: 2 }, 4));
    expect(first.length).toBe(2);
    expect(first.every((e) => e.worker === 'gpu0')).toBe(true);
  });
});
