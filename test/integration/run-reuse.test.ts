/**
 * Reuse of unchanged results and the run queue, on real worker processes through the service
 * (the API every front end uses). Oracle: the same workflow run in this process by the js kernels
 * (test/helpers/local-run.ts), which knows nothing of caches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../common/events';
import type { ResultValue } from '../../common/results';
import { GpuflowService } from '../../main/api/service';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { upstreamDoc } from '../../main/engine/upstream';
import { runLocal } from '../helpers/local-run';

/** x (4 blocks) -> prod = x @ x (4 matmul tasks) -> total = reduce(prod): each node has tasks of its own. */
function doc(totalOp = 'sum', seed = 3) {
  return {
    format: 'gpuflow.workflow/1' as const,
    name: 'reuse',
    nodes: [
      { id: 'x', op: 'random_normal', params: { shape: [200, 200], chunks: [100, 100], mean: 0, std: 1, seed } },
      { id: 'prod', op: 'matmul', params: {} },
      { id: 'total', op: 'reduce', params: { op: totalOp } },
    ],
    edges: [
      { source: 'x', sourcePort: 'out', target: 'prod', targetPort: 'a' },
      { source: 'x', sourcePort: 'out', target: 'prod', targetPort: 'b' },
      { source: 'prod', sourcePort: 'out', target: 'total', targetPort: 'x' },
    ],
  };
}

const scalar = (v: ResultValue | undefined) => (v?.kind === 'scalar' ? v.value : NaN);
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

let engine: Engine;
let svc: GpuflowService;
const events: EngineEvent[] = [];

async function startEngine(budgetBytes?: number) {
  const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
  const e = new Engine(d, { launcher: forkLauncher(), virtualGpus: 2, cpuWorkers: 1, backends: ['js'], threadsPerCpuWorker: 1 }, { budgetBytes });
  await e.start();
  return e;
}

/** Runs with reuse through the service; returns the result and the nodes whose tasks ran. */
async function run(d: unknown, opts: { node?: string } = {}) {
  const s = svc.run(d, { reuse: true, ...opts });
  const r = await s.done;
  const ran = new Set(events.filter((e) => e.type === 'task' && e.runId === s.runId).map((e) => (e.type === 'task' ? e.node : '')));
  return { r, ran: [...ran].sort() };
}

beforeAll(async () => {
  engine = await startEngine();
  svc = new GpuflowService(engine, null, { launcher: forkLauncher(), virtualGpus: 2, backends: ['js'] });
  svc.subscribe((e) => events.push(e));
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

describe('reusing unchanged results', () => {
  it('a second run of the same graph reuses every task and gives the same digest', async () => {
    const oracle = scalar((await runLocal(doc())).total);
    const first = await run(doc());
    expect(first.r.status).toBe('finished');
    // x's blocks fuse into the matmul tasks: x has no tasks of its own.
    expect(first.ran).toEqual(['prod', 'total']);
    expect(first.r.stats.reused?.tasks ?? 0).toBe(0);
    expect(close(scalar(first.r.results.total), oracle)).toBe(true);

    const second = await run(doc());
    expect(second.r.status).toBe('finished');
    expect(second.ran).toEqual([]);
    expect(second.r.stats.reused).toEqual({ tasks: second.r.stats.tasks, nodes: ['prod', 'total'] });
    expect(second.r.digest).toBe(first.r.digest);
    expect(events.some((e) => e.type === 'reused' && e.runId === second.r.runId && e.tasks === second.r.stats.tasks)).toBe(true);
  }, 60_000);

  it('changing one param reruns only that node and what is downstream of it', async () => {
    const oracle = scalar((await runLocal(doc('max'))).total);
    const r = await run(doc('max'));
    expect(r.r.status).toBe('finished');
    expect(r.ran).toEqual(['total']);
    expect(r.r.stats.reused?.nodes).toEqual(['prod']);
    expect(close(scalar(r.r.results.total), oracle)).toBe(true);
    // Upstream change: everything downstream of x runs again.
    const again = await run(doc('max', 4));
    expect(again.ran).toEqual(['prod', 'total']);
    expect(close(scalar(again.r.results.total), scalar((await runLocal(doc('max', 4))).total))).toBe(true);
  }, 60_000);

  it('run selected runs the node from cached upstream results, equal to running it alone', async () => {
    const sub = upstreamDoc(doc(), 'prod');
    const oracle = (await runLocal(sub)).prod;
    const r = await run(doc(), { node: 'prod' });
    expect(r.r.status).toBe('finished');
    expect(r.ran).toEqual([]);
    expect(Object.keys(r.r.results)).toEqual(['prod']);
    const got = r.r.results.prod;
    expect(got.kind === 'array' && oracle.kind === 'array').toBe(true);
    if (got.kind === 'array' && oracle.kind === 'array') expect(got.data!.every((v, i) => close(v as number, oracle.data![i] as number))).toBe(true);
  }, 60_000);

  it('a cached output lost with its worker (killed as the run starts) is recomputed, same answer', async () => {
    const before = await run(doc());
    expect(before.ran).toEqual([]);
    const held = Object.keys(engine.cache.bytesByWorker());
    expect(held.length).toBeGreaterThan(0);
    // Every worker holding a cached output is killed (not only the largest holder: the sink's
    // output may sit elsewhere, and the run would then reuse it and rightly run nothing).
    // Killed now, noticed only after the run has looked the cache up: the run starts from
    // outputs that are gone, and must recompute them.
    for (const id of held) process.kill(engine.pool.workers.get(id)!.pid!, 'SIGKILL');
    const after = await run(doc());
    expect(after.r.status).toBe('finished');
    expect(after.r.digest).toBe(before.r.digest);
    expect(after.ran.length).toBeGreaterThan(0);
    await expect.poll(() => engine.pool.ready.length, { timeout: 30_000 }).toBe(3);
  }, 60_000);
});

describe('eviction under a tiny budget', () => {
  it('keeps the cache within budget, reuses what is left, and still gives the right answer', async () => {
    engine.cache.setBudget(100_000); // one 80 KB matmul block fits, not two
    try {
      expect(engine.cache.stats().bytes).toBeLessThanOrEqual(100_000);
      const oracle = scalar((await runLocal(doc('sum', 11))).total);
      const first = await run(doc('sum', 11));
      expect(first.ran).toEqual(['prod', 'total']);
      expect(engine.cache.stats().bytes).toBeLessThanOrEqual(100_000);
      expect(engine.cache.stats().evictions).toBeGreaterThan(0);
      const again = await run(doc('sum', 11));
      expect(again.r.digest).toBe(first.r.digest);
      expect(close(scalar(again.r.results.total), oracle)).toBe(true);
      // Another reduction of the same product: the one cached block is reused, the evicted ones recomputed.
      const max = await run(doc('max', 11));
      expect(max.ran).toEqual(['prod', 'total']);
      expect(max.r.stats.reused?.tasks).toBeGreaterThan(0);
      expect(close(scalar(max.r.results.total), scalar((await runLocal(doc('max', 11))).total))).toBe(true);
      expect(engine.cache.stats().bytes).toBeLessThanOrEqual(100_000);
    } finally {
      engine.cache.setBudget(512 * 1024 * 1024);
    }
  }, 60_000);
});

describe('the run queue', () => {
  it('starts entries in order, one at a time; a removed entry never runs; cancel starts the next', async () => {
    const started: string[] = [];
    const unsub = svc.subscribe((e) => {
      if (e.type === 'queue') for (const q of e.entries) if (q.state === 'running' && !started.includes(q.label)) started.push(q.label);
    });
    try {
      // A long run: 3,600 chunks, cancelled right after it is queued.
      const long = { ...doc(), name: 'long', nodes: [{ id: 'x', op: 'random_normal', params: { shape: [60_000, 60_000], chunks: [1000, 1000], seed: 1 } }, { id: 'total', op: 'reduce', params: { op: 'sum' } }], edges: [{ source: 'x', sourcePort: 'out', target: 'total', targetPort: 'x' }] };
      const a = await svc.enqueue(long);
      const b = await svc.enqueue({ ...doc(), name: 'second' });
      const c = await svc.enqueue({ ...doc(), name: 'third' });
      expect(a.state).toBe('running');
      expect(svc.queueEntries().map((q) => [q.label, q.state])).toEqual([
        ['long', 'running'],
        ['second', 'queued'],
        ['third', 'queued'],
      ]);
      expect(() => svc.removeQueued(a.id)).toThrow(/is running: cancel/);
      expect(svc.removeQueued(c.id)).toBe(true);
      expect(svc.removeQueued(c.id)).toBe(false);
      const status = new Map<string, string>();
      const offResults = svc.onResult((m) => {
        if (m.type === 'run-result') status.set(m.result.runId, m.result.status);
      });
      const emptied = new Promise<void>((resolve) => {
        const off = svc.subscribe((e) => {
          if (e.type === 'queue' && e.entries.length === 0) {
            off();
            resolve();
          }
        });
      });
      expect(svc.cancel(a.runId!)).toBe(true);
      await emptied;
      offResults();
      expect(started).toEqual(['long', 'second']);
      const second = [...status.keys()].find((id) => id !== a.runId)!;
      expect([status.get(a.runId!), status.get(second)]).toEqual(['cancelled', 'finished']);
      expect(status.size).toBe(2);
      expect(b.state).toBe('queued');
      // Cancelled at once (few or none of its 3,600+ tasks finished): its counts still come before
      // its end, so the page has bars to paint as cancelled.
      const its = events.filter((e) => 'runId' in e && e.runId === a.runId);
      const endAt = its.findIndex((e) => e.type === 'run' && e.state === 'cancelled');
      const last = its.slice(0, endAt).findLast((e) => e.type === 'progress');
      expect(endAt).toBeGreaterThan(0);
      expect(last?.type === 'progress' && [last.total >= 3600, last.done < last.total, Object.values(last.byNode).reduce((n, [, t]) => n + t, 0) === last.total]).toEqual([true, true, true]);
    } finally {
      unsub();
    }
  }, 60_000);
});
