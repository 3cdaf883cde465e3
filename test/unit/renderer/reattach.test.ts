import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../common/events';
import { fromDoc } from '../../../renderer/logic/graph-model';
import { createSession } from '../../../renderer/state/session';
import { fakeApi } from './fake-api';

const seed = () => fromDoc(JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')));
const progress = (seq: number, done: number): EngineEvent => ({ type: 'progress', seq, t: seq, runId: 'r1', done, total: 10, byNode: { x: [done, 10] } });

describe('a page that loads mid-run re-attaches to it', () => {
  it('shows the queue’s running run from its first event, follows it to the end and can cancel it', async () => {
    const api = fakeApi();
    api.queueEntries = [{ id: 'q1', label: 'seed benchmark', node: null, state: 'running', runId: 'r1', storeId: 7, queuedAt: 1 }];
    const s = createSession(api, (fn) => fn());
    s.editor.getState().load(seed(), null);
    const init = s.init();
    // The socket replays the ring before the queue answers: an older run's events, then this run's.
    api.push({ type: 'run', seq: 1, t: 1, runId: 'old', state: 'finished' });
    api.push({ type: 'run', seq: 2, t: 2, runId: 'r1', state: 'started', tasks: 10 });
    api.push(progress(3, 4));
    await init;
    expect(s.run.getState()).toMatchObject({ status: 'running', runId: 'r1', storeId: 7, done: 4, total: 10 });
    api.push(progress(4, 6));
    expect(s.run.getState().done).toBe(6);
    await s.cancel();
    expect(api.cancelled).toEqual(['r1']);
  });

  it('shows nothing when no run is in flight, and drops the replayed backlog', async () => {
    const api = fakeApi();
    const s = createSession(api, (fn) => fn());
    const init = s.init();
    api.push(progress(1, 4));
    await init;
    expect(s.run.getState()).toMatchObject({ status: 'idle', runId: null, done: 0 });
  });

  it('shows a benchmark under way as running, and completes it with its result', async () => {
    const api = fakeApi();
    api.benches = [{ benchId: 'b1', workflow: 'seed benchmark', startedAt: 1 }];
    const s = createSession(api, (fn) => fn());
    await s.init();
    expect(s.data.getState().bench).toMatchObject({ id: 'b1', running: true });
    api.push({ type: 'bench-result', benchId: 'b1', result: { error: 'stopped' } });
    expect(s.data.getState().bench).toMatchObject({ id: 'b1', running: false, error: 'stopped' });
  });
});
