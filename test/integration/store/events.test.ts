import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openStore, type Store } from '../../../main/store';
import type { EventInput } from '../../../common/store-types';
import { sampleDoc, tempDir } from './helpers';

let cleanup: () => void;
let path: string;
beforeEach(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  path = join(t.dir, 'gpuflow.db');
});
afterEach(() => cleanup());

function newRun(store: Store): number {
  const { hash } = store.saveWorkflowVersion(sampleDoc());
  return store.startRun({ workflowHash: hash, machine: 'm' }).id;
}

describe('task events', () => {
  it('stores events up to the cap, then keeps only aggregates (always complete)', () => {
    const store = openStore(path, { eventCap: 5 });
    const run = newRun(store);
    // 12 events over 3 batches: per (op, worker) totals computed by hand below.
    const evs: EventInput[] = [];
    for (let i = 0; i < 12; i++) {
      evs.push({ t: i, type: i % 3 === 0 ? 'task-start' : 'task-done', key: `k${i}`, op: i % 2 ? 'add' : 'sum', worker: i < 6 ? 'gpu0' : 'cpu0', ms: i % 3 === 0 ? null : i, bytes: 10 });
    }
    store.appendEvents([[run, evs.slice(0, 4)]]);
    store.appendEvents([[run, evs.slice(4, 9)]]);
    store.appendEvents([[run, evs.slice(9)]]);
    const stored = store.listEvents(run);
    expect(stored.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(stored[1]).toEqual({ seq: 1, t: 1, type: 'task-done', key: 'k1', worker: 'gpu0', op: 'add', ms: 1, bytes: 10, backend: null });
    expect(store.getRun(run)).toMatchObject({ eventsTotal: 12, eventsDropped: 7 });
    // i: op / worker / ms   (ms null when i % 3 === 0)
    // add,gpu0: 1,3(null),5 -> events 3, tasks 2, ms 6, max 5
    // sum,gpu0: 0(null),2,4 -> events 3, tasks 2, ms 6, max 4
    // add,cpu0: 7,9(null),11 -> events 3, tasks 2, ms 18, max 11
    // sum,cpu0: 6(null),8,10 -> events 3, tasks 2, ms 18, max 10
    expect(store.eventAggregates(run)).toEqual([
      { op: 'add', worker: 'cpu0', events: 3, tasks: 2, msTotal: 18, msMax: 11, bytesTotal: 30 },
      { op: 'add', worker: 'gpu0', events: 3, tasks: 2, msTotal: 6, msMax: 5, bytesTotal: 30 },
      { op: 'sum', worker: 'cpu0', events: 3, tasks: 2, msTotal: 18, msMax: 10, bytesTotal: 30 },
      { op: 'sum', worker: 'gpu0', events: 3, tasks: 2, msTotal: 6, msMax: 4, bytesTotal: 30 },
    ]);
    expect(store.listEvents(run, { afterSeq: 2, limit: 1 }).map((e) => e.seq)).toEqual([3]);
    store.close();
  });

  it('the event writer loses nothing between pushes and close', () => {
    const store = openStore(path);
    const run = newRun(store);
    const writer = store.createEventWriter({ flushMs: 10_000 });
    for (let i = 0; i < 3000; i++) writer.push(run, { t: i, type: 'task-done', op: 'sum', worker: 'cpu0', ms: 0.5 });
    expect(store.listEvents(run)).toHaveLength(0);
    writer.close();
    expect(store.listEvents(run, { limit: 10_000 })).toHaveLength(3000);
    expect(store.eventAggregates(run)).toEqual([{ op: 'sum', worker: 'cpu0', events: 3000, tasks: 3000, msTotal: 1500, msMax: 0.5, bytesTotal: 0 }]);
    store.close();
  });

  it('closing the store flushes its writers', () => {
    const store = openStore(path);
    const run = newRun(store);
    const writer = store.createEventWriter({ flushMs: 10_000 });
    writer.push(run, { t: 0, type: 'task-done' });
    store.close();
    const reopened = openStore(path);
    expect(reopened.listEvents(run)).toHaveLength(1);
    reopened.close();
  });

  it('refuses events of an unknown run without writing any', () => {
    const store = openStore(path);
    const run = newRun(store);
    expect(() => store.appendEvents([[run, [{ t: 0, type: 'a' }]], [999, [{ t: 0, type: 'a' }]]])).toThrow(/no such run/);
    expect(store.getRun(run)!.eventsTotal).toBe(0);
    store.close();
  });
});
