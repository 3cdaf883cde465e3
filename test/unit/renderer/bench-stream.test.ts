/**
 * A benchmark's current run has its own task stream (session.benchLog): the events of a run whose
 * 'run' event names a benchmark go there, not to the window's run; the next run of the benchmark
 * replaces the last one's stream; the window's own run is drawn as before.
 */
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../common/events';
import { createSession } from '../../../renderer/state/session';
import { fakeApi } from './fake-api';

const task = (seq: number, runId: string, key: string, worker: string): EngineEvent => ({ type: 'task', seq, t: seq, runId, key, node: 'x', op: 'sum', worker, start: seq, end: seq + 5, bytes: 8, backend: 'js', cause: 0 });

describe("a benchmark's task stream", () => {
  it("draws the benchmark's current run apart from the window's run, each run replacing the last", async () => {
    const api = fakeApi();
    const s = createSession(api, (fn) => fn());
    await s.init();
    api.push({ type: 'run', seq: 1, t: 1, runId: 'b1', state: 'started', benchId: 'bench-1' });
    api.push(task(2, 'b1', 'x/0', 'cpu0'));
    api.push(task(3, 'b1', 'x/1', 'cpu0'));
    api.push({ type: 'task-state', seq: 4, t: 4, runId: 'b1', key: 'x/2', node: 'x', from: 'ready', to: 'running', worker: 'cpu0', cause: 0 });
    expect(s.benchLog.n).toBe(2);
    expect([...s.benchLog.keys]).toEqual(['x/0', 'x/1']);
    expect(s.benchLog.running.size).toBe(1);
    expect(s.log.n).toBe(0);
    // The next repetition: the stream starts again with it.
    api.push({ type: 'run', seq: 5, t: 5, runId: 'b1', state: 'finished', benchId: 'bench-1' });
    api.push({ type: 'run', seq: 6, t: 6, runId: 'b2', state: 'started', benchId: 'bench-1' });
    api.push(task(7, 'b2', 'x/0', 'gpu0'));
    expect(s.benchLog.n).toBe(1);
    expect(s.benchLog.running.size).toBe(0);
    expect(s.benchLog.lanes.map((l) => l.id)).toEqual(['gpu0']);
    // A run of no benchmark is not drawn there.
    api.push(task(8, 'other', 'y/0', 'cpu0'));
    expect(s.benchLog.n).toBe(1);
  });
});
