/**
 * The reuse logic without processes: task digests (what "unchanged" means), the scheduler
 * starting from cached outputs (what runs), and the cache's LRU / pins / worker bounds.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NodeOutput, TaskDef } from '../../../common/tasks';
import type { WorkerPool } from '../../../main/cluster/pool';
import { ResultCache } from '../../../main/engine/cache/result-cache';
import { taskDigests } from '../../../main/engine/cache/task-digests';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { Scheduler, type Instruction } from '../../../main/engine/scheduler/scheduler';
import { upstreamDoc } from '../../../main/engine/upstream';
import { validateWorkflow } from '../../../main/engine/validate';

const seed = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')) as { nodes: Array<{ id: string; params: Record<string, unknown> }>; edges: Array<{ source: string; target: string }> };
const digestsOf = (doc: unknown, params = {}) => taskDigests(compileWorkflow(validateWorkflow(doc, params)).tasks);

describe('task digests', () => {
  it('are stable across compilations and node renames, and change with a param', () => {
    const a = digestsOf(seed, { N: 400, chunks: 200 });
    const b = digestsOf(seed, { N: 400, chunks: 200 });
    expect([...a.values()].every((d) => typeof d === 'string')).toBe(true);
    expect(a).toEqual(b);
    // Same content under other node ids: same digests (keys differ, the set of digests does not).
    const renamed = JSON.parse(JSON.stringify(seed).replaceAll('"total"', '"sum_it"'));
    expect(new Set(digestsOf(renamed, { N: 400, chunks: 200 }).values())).toEqual(new Set(a.values()));
    // Another seed changes every task fed by the generator.
    const other = digestsOf(seed, { N: 400, chunks: 200, seed: 7 });
    for (const [k, d] of other) expect(d).not.toBe(a.get(k));
  });

  it('leave out tasks that touch files, and everything downstream of them', () => {
    const t = (key: string, deps: string[], spec: TaskDef['spec']): TaskDef => ({ key, deps, spec, resource: 'any', node: key, op: key, outBytes: 8, workBytes: 8 });
    const tasks = new Map<string, TaskDef>([
      ['read', t('read', [], { kind: 'df', op: 'read-csv', params: { path: '/x.csv' } })],
      ['use', t('use', ['read'], { kind: 'df', op: 'filter', params: {} })],
      ['gen', t('gen', [], { kind: 'df', op: 'timeseries', params: { seed: 1, partition: 0, rows: 10 } })],
      ['save', t('save', ['gen'], { kind: 'array-op', op: 'npy-save', params: { path: '/y.npy' } })],
    ]);
    const d = taskDigests(tasks);
    expect(d.get('read')).toBeNull();
    expect(d.get('use')).toBeNull();
    expect(d.get('save')).toBeNull();
    expect(d.get('gen')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('upstreamDoc (run selected)', () => {
  it('keeps the node and what feeds it, nothing downstream', () => {
    const sub = upstreamDoc(seed, 'plus1') as typeof seed;
    expect(sub.nodes.map((n) => n.id).sort()).toEqual(['plus1', 'x']);
    expect(sub.edges).toHaveLength(1);
    expect(() => upstreamDoc(seed, 'nope')).toThrow(/no node 'nope'/);
  });
});

/** x0, x1 -> m0 (from x0), m1 (from x1) -> s (sum of m0, m1). Nodes: x, m, s. */
function graph() {
  const t = (key: string, node: string, deps: string[]): TaskDef => ({ key, deps, spec: { kind: 'combine', finalize: false }, resource: 'any', node, op: node, outBytes: 8, workBytes: 8 });
  const tasks = new Map<string, TaskDef>();
  for (const d of [t('x0', 'x', []), t('x1', 'x', []), t('m0', 'm', ['x0']), t('m1', 'm', ['x1']), t('s', 's', ['m0', 'm1'])]) tasks.set(d.key, d);
  const outputs: Record<string, NodeOutput> = { s: { kind: 'scalar', key: 's', dtype: 'float64' } };
  return { tasks, outputs };
}
const executes = (ins: Instruction[]) => ins.filter((i): i is Extract<Instruction, { type: 'execute' }> => i.type === 'execute');

describe('scheduler starting from cached outputs', () => {
  it('runs a task again when its failure is marked retry (the cache freed the memory it lacked)', () => {
    const { tasks, outputs } = graph();
    const s = new Scheduler(tasks, outputs, () => 0, new Map([['m0', 'A'], ['m1', 'A']]));
    s.handle({ type: 'worker-added', id: 'A', kind: 'cpu', slots: 1 }, 1);
    expect(executes(s.start(2)).map((e) => e.key)).toEqual(['s']);
    const again = s.handle({ type: 'task-erred', key: 's', worker: 'A', message: 'over the memory limit', code: 'memory', retry: true }, 3);
    expect(executes(again).map((e) => e.key)).toEqual(['s']);
    // Without retry the same failure ends the run.
    const end = s.handle({ type: 'task-erred', key: 's', worker: 'A', message: 'over the memory limit', code: 'memory' }, 4);
    expect(end.some((i) => i.type === 'failed')).toBe(true);
  });

  it('runs only what is downstream of the cached tasks, reading them where they are', () => {
    const { tasks, outputs } = graph();
    const s = new Scheduler(tasks, outputs, () => 0, new Map([['m0', 'A'], ['m1', 'B']]));
    s.handle({ type: 'worker-added', id: 'A', kind: 'cpu', slots: 2 }, 1);
    s.handle({ type: 'worker-added', id: 'B', kind: 'cpu', slots: 2 }, 2);
    const first = executes(s.start(3));
    expect(first.map((e) => e.key)).toEqual(['s']);
    expect(first[0].deps.map((d) => d.key)).toEqual(['m0', 'm1']);
    expect(s.reusedTasks().map((r) => `${r.key}:${r.held}`).sort()).toEqual(['m0:true', 'm1:true', 'x0:false', 'x1:false']);
    expect(s.story('m0')[0]).toMatchObject({ to: 'memory', reused: true });
    const end = s.handle({ type: 'task-finished', key: 's', worker: first[0].worker, bytes: 8 }, 4);
    expect(end.some((i) => i.type === 'finished')).toBe(true);
    expect(s.counts().done).toBe(5);
  });

  it('finishes at once when the outputs themselves are cached', () => {
    const { tasks, outputs } = graph();
    const s = new Scheduler(tasks, outputs, () => 0, new Map([['s', 'A']]));
    s.handle({ type: 'worker-added', id: 'A', kind: 'cpu', slots: 1 }, 1);
    const out = s.start(2);
    expect(executes(out)).toEqual([]);
    expect(out.some((i) => i.type === 'finished')).toBe(true);
    expect(s.holdersOf('s')).toEqual(['A']);
  });

  it('recomputes a cached input whose holder dies, from its own inputs', () => {
    const { tasks, outputs } = graph();
    const s = new Scheduler(tasks, outputs, () => 0, new Map([['m0', 'A'], ['m1', 'B']]));
    s.handle({ type: 'worker-added', id: 'A', kind: 'cpu', slots: 0 }, 1);
    s.handle({ type: 'worker-added', id: 'B', kind: 'cpu', slots: 4 }, 2);
    expect(executes(s.start(3)).map((e) => e.key)).toEqual(['s']);
    const lost = s.handle({ type: 'worker-removed', id: 'A', reason: 'crashed' }, 4);
    // m0 went with A: x0 (never run here) runs now, then m0; s, which could not fetch m0, runs again.
    expect(executes(lost).map((e) => e.key)).toEqual(['x0']);
    expect(s.stateOf('m0')).toBe('waiting');
    s.handle({ type: 'task-erred', key: 's', worker: 'B', message: 'lost input', code: 'fetch' }, 5);
    expect(executes(s.handle({ type: 'task-finished', key: 'x0', worker: 'B', bytes: 8 }, 6)).map((e) => e.key)).toEqual(['m0']);
    expect(executes(s.handle({ type: 'task-finished', key: 'm0', worker: 'B', bytes: 8 }, 7)).map((e) => e.key)).toEqual(['s']);
    expect(s.handle({ type: 'task-finished', key: 's', worker: 'B', bytes: 8 }, 8).some((i) => i.type === 'finished')).toBe(true);
    // The other branch was never recomputed: x1 only ever was "done, reused".
    expect(s.story('x1')).toEqual([expect.objectContaining({ to: 'done', reused: true })]);
  });
});

/** The pool surface the cache uses: workers (alive, pid, memory limit), send, listen. */
function fakePool(limit = 1000) {
  const sent: Array<{ worker: string; keys: string[] }> = [];
  const downs: Array<(w: { id: string }) => void> = [];
  const workers = new Map(['A', 'B'].map((id, i) => [id, { id, alive: true, pid: 100 + i, config: { memoryLimit: limit } }]));
  const pool = {
    workers,
    send: (worker: string, m: { type: string; keys: string[] }) => sent.push({ worker, keys: m.keys }),
    listen: (l: { down?: (w: { id: string }) => void }) => {
      if (l.down) downs.push(l.down);
      return () => undefined;
    },
  };
  return { pool: pool as unknown as WorkerPool, sent, workers, down: (id: string) => downs.forEach((f) => f({ id })) };
}

describe('result cache', () => {
  it('evicts the least recently used unpinned entries to stay in budget, releasing them on their worker', () => {
    const { pool, sent } = fakePool(10_000);
    const c = new ResultCache(pool, { budgetBytes: 300, workerShare: 1 });
    const out = (worker: string, key: string, bytes = 100) => ({ worker, pid: worker === 'A' ? 100 : 101, wireKey: key, bytes });
    expect(c.offer('d1', out('A', 'r:1'))).toBe(true);
    expect(c.offer('d2', out('A', 'r:2'))).toBe(true);
    expect(c.offer('d3', out('B', 'r:3'))).toBe(true);
    c.lookup('d1'); // d1 is now the most recent; d2 the least
    c.pin('d2');
    expect(c.offer('d4', out('B', 'r:4'))).toBe(true); // d2 pinned: d3 goes
    expect(sent).toEqual([{ worker: 'B', keys: ['r:3'] }]);
    expect(c.lookup('d3')).toBeUndefined();
    expect(c.stats()).toMatchObject({ entries: 3, bytes: 300, evictions: 1 });
    // Too big for the budget: refused, nothing evicted.
    expect(c.offer('d5', out('A', 'r:5', 400))).toBe(false);
    // Already cached under another key: the second copy is not kept.
    expect(c.offer('d1', out('B', 'r:9'))).toBe(false);
    expect(c.owns('d1', 'A', 'r:1')).toBe(true);
  });

  it('keeps at most its share of a worker memory', () => {
    const { pool } = fakePool(1000);
    const c = new ResultCache(pool, { budgetBytes: 10_000, workerShare: 0.25 });
    expect(c.offer('d1', { worker: 'A', pid: 100, wireKey: 'k1', bytes: 200 })).toBe(true);
    expect(c.offer('d2', { worker: 'A', pid: 100, wireKey: 'k2', bytes: 200 })).toBe(true); // evicts d1 (250 cap)
    expect(c.lookup('d1')).toBeUndefined();
    expect(c.offer('d3', { worker: 'B', pid: 101, wireKey: 'k3', bytes: 200 })).toBe(true);
    expect(c.stats().entries).toBe(2);
  });

  it('gives way on a worker that needs the memory: every unpinned entry there is released', () => {
    const { pool, sent } = fakePool(10_000);
    const c = new ResultCache(pool, { budgetBytes: 10_000, workerShare: 1 });
    c.offer('d1', { worker: 'A', pid: 100, wireKey: 'k1', bytes: 10 });
    c.offer('d2', { worker: 'A', pid: 100, wireKey: 'k2', bytes: 20 });
    c.offer('d3', { worker: 'B', pid: 101, wireKey: 'k3', bytes: 40 });
    c.pin('d2');
    expect(c.freeWorker('A')).toBe(10);
    expect(sent).toEqual([{ worker: 'A', keys: ['k1'] }]);
    expect(c.bytesByWorker()).toEqual({ A: 20, B: 40 });
  });

  it('forgets what a worker held when it goes down or comes back as another process', () => {
    const { pool, workers, down } = fakePool(10_000);
    const c = new ResultCache(pool, { budgetBytes: 10_000, workerShare: 1 });
    c.offer('d1', { worker: 'A', pid: 100, wireKey: 'k1', bytes: 10 });
    c.offer('d2', { worker: 'B', pid: 101, wireKey: 'k2', bytes: 10 });
    down('A');
    expect(c.lookup('d1')).toBeUndefined();
    workers.get('B')!.pid = 555; // restarted before anyone noticed
    expect(c.lookup('d2')).toBeUndefined();
    expect(c.stats().entries).toBe(0);
    // An output from a process that is no longer there is refused.
    expect(c.offer('d3', { worker: 'B', pid: 101, wireKey: 'k3', bytes: 10 })).toBe(false);
  });
});
