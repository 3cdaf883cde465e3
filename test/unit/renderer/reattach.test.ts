import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunResultMessage } from '../../../common/api';
import type { EngineEvent } from '../../../common/events';
import type { RunRecord } from '../../../common/store-types';
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
    api.benches = [{ benchId: 'b1', workflowName: 'seed benchmark', configs: ['1 CPU core'], configIndex: 0, phase: 'timed', runsDone: 1, warmup: 1, repeat: 3, elapsedMs: 1000, etaMs: 2000, lastMs: 500, runId: null }];
    const s = createSession(api, (fn) => fn());
    await s.init();
    expect(s.data.getState().bench).toMatchObject({ id: 'b1', running: true });
    api.push({ type: 'bench-result', benchId: 'b1', result: { error: 'stopped' } });
    expect(s.data.getState().bench).toMatchObject({ id: 'b1', running: false, error: 'stopped' });
  });

  it('draws a benchmark run whose start the event ring no longer holds: its events so far, then the live ones, once each', async () => {
    const api = fakeApi();
    const bench = { benchId: 'b1', workflowName: 'seed benchmark', configs: ['1 CPU core', 'all CPU cores'], configIndex: 0, phase: 'timed' as const, runsDone: 1, warmup: 0, repeat: 3, elapsedMs: 1000, etaMs: 2000, lastMs: 500 };
    api.benches = [{ ...bench, runId: 'br2' }];
    const task = (seq: number, key: string, worker: string, runId = 'br2'): EngineEvent => ({ type: 'task', seq, t: seq, runId, key, node: 'x', op: 'normal', worker, start: seq, end: seq + 1, bytes: 8, backend: 'js', cause: 0 });
    // The server kept the run's events from its start (seq 100); the ring only has seq 103 on.
    api.benchEvents = { b1: [{ type: 'run', seq: 100, t: 100, runId: 'br2', state: 'started', tasks: 5, benchId: 'b1' }, task(101, 'x-0', 'cpu0'), task(102, 'x-1', 'cpu1'), task(103, 'x-2', 'cpu0')] };
    api.push(task(103, 'x-2', 'cpu0'));
    api.push(task(104, 'x-3', 'cpu1'));
    const s = createSession(api, (fn) => fn());
    await s.init();
    await Promise.resolve();
    api.push(task(105, 'x-4', 'cpu0'));
    expect(s.benchLog.keys.slice(0, s.benchLog.n)).toEqual(['x-0', 'x-1', 'x-2', 'x-3', 'x-4']);
    expect(s.benchLog.countsByLane()).toEqual({ cpu0: 3, cpu1: 2 });
    // The window's own stream is not the benchmark's.
    expect(s.log.n).toBe(0);
    // The next configuration's workers starting: the finished run's stream is cleared, not shown under "starting workers".
    s.followBench({ ...bench, configIndex: 1, phase: 'starting', runsDone: 0, runId: 'br2' });
    expect(s.benchLog.n).toBe(0);
    // A run the socket showed from its start, which no poll named while it ran (a 100 ms run), is cleared the same way.
    api.push({ type: 'run', seq: 200, t: 200, runId: 'br3', state: 'started', tasks: 1, benchId: 'b1' });
    api.push(task(201, 'y-0', 'cpu0', 'br3'));
    expect(s.benchLog.n).toBe(1);
    s.followBench({ ...bench, configIndex: 2, phase: 'starting', runsDone: 0, runId: 'br3' });
    expect(s.benchLog.n).toBe(0);
    // But a run newer than the poll's answer stays drawn.
    api.push({ type: 'run', seq: 300, t: 300, runId: 'br4', state: 'started', tasks: 1, benchId: 'b1' });
    api.push(task(301, 'z-0', 'cpu0', 'br4'));
    s.followBench({ ...bench, configIndex: 2, phase: 'starting', runsDone: 0, runId: 'br3' });
    expect(s.benchLog.n).toBe(1);
    // The view reads that run as the configuration's first, not "starting workers", until the server names it.
    expect(s.benchAhead({ ...bench, configIndex: 2, phase: 'starting', runsDone: 0, runId: 'br3' })).toBe(true);
    s.followBench({ ...bench, configIndex: 2, phase: 'timed', runsDone: 0, runId: 'br4' });
    expect(s.benchAhead({ ...bench, configIndex: 2, phase: 'timed', runsDone: 0, runId: 'br4' })).toBe(false);
    expect(s.benchLog.n).toBe(1);
  });

  it("shows another window's run in an open window, marking done only the nodes its own workflow shares", async () => {
    const api = fakeApi();
    const s = createSession(api, (fn) => fn());
    s.editor.getState().load(seed(), null);
    await s.init();
    expect(s.run.getState().status).toBe('idle');
    // The other window's graph differs at plus1 (value 2): plus1 and what follows are not this graph's results.
    const theirs = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));
    theirs.nodes[1].params.value = 2;
    api.run = (id) => Promise.resolve({ id, workflow: theirs } as unknown as RunRecord);
    api.push({ type: 'queue', seq: 10, t: 10, entries: [{ id: 'q2', label: 'seed benchmark', node: null, state: 'running', runId: 'r2', storeId: 3, queuedAt: 1 }] });
    expect(s.run.getState()).toMatchObject({ status: 'running', runId: 'r2' });
    await new Promise((r) => setTimeout(r, 0));
    expect(Object.keys(s.run.getState().pendingSigs)).toEqual(['x']);
    api.push({ type: 'run-result', result: { runId: 'r2', status: 'finished', results: {}, digest: 'd', storeId: 3, stats: { tasks: 1, durationMs: 1 } } as unknown as RunResultMessage['result'] });
    expect(Object.keys(s.run.getState().doneSigs)).toEqual(['x']);
  });

  it("keeps the live run's first events on load however many events of finished runs the backlog holds", async () => {
    const api = fakeApi();
    api.queueEntries = [{ id: 'q1', label: 'seed benchmark', node: null, state: 'running', runId: 'r1', storeId: 7, queuedAt: 1 }];
    const s = createSession(api, (fn) => fn());
    s.editor.getState().load(seed(), null);
    const init = s.init();
    let seq = 0;
    api.push({ type: 'run', seq: ++seq, t: seq, runId: 'r1', state: 'started', tasks: 10 });
    api.push({ type: 'reused', seq: ++seq, t: seq, runId: 'r1', tasks: 3, nodes: ['x'], cause: 0 });
    // A run started directly beside it (POST /api/runs) sends 50 000 events and ends.
    for (let i = 0; i < 50_000; i++) api.push({ type: 'progress', seq: ++seq, t: seq, runId: 'other', done: i, total: 50_000, byNode: {} });
    api.push({ type: 'run', seq: ++seq, t: seq, runId: 'other', state: 'finished' });
    await init;
    expect(s.run.getState()).toMatchObject({ runId: 'r1', reused: ['x'], reusedTasks: 3 });
  });

  it('paints the stopped tasks as cancelled once the result says cancelled, before (or without) the run\'s cancelled event', async () => {
    const api = fakeApi();
    api.queueEntries = [{ id: 'q1', label: 'seed benchmark', node: null, state: 'running', runId: 'r1', storeId: 7, queuedAt: 1 }];
    // The task stream's batches are held (a busy page): only the result message gets through now.
    const held: Array<() => void> = [];
    const s = createSession(api, (fn) => held.push(fn));
    s.editor.getState().load(seed(), null);
    const init = s.init();
    api.push({ type: 'run', seq: 1, t: 1, runId: 'r1', state: 'started', tasks: 10 });
    await init;
    api.push({ type: 'task-state', seq: 2, t: 2, runId: 'r1', key: 'x-0', node: 'x', from: 'running', to: 'erred', cause: 0 });
    api.push({ type: 'run-result', result: { runId: 'r1', status: 'cancelled', results: {}, digest: null, storeId: 7, stats: { tasks: 10, durationMs: 1 } } as unknown as RunResultMessage['result'] });
    expect(s.run.getState().status).toBe('cancelled');
    expect(s.nodeTasks.cancelled).toBe(true);
    // The held batch lands later: the erred task, stopped by the cancel, is not counted as failed.
    for (const fn of held.splice(0)) fn();
    expect([s.nodeTasks.erredOf('x'), s.nodeTasks.cancelled]).toEqual([0, true]);
  });
});
