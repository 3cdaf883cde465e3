import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../common/events';
import { NodeTasks } from '../../../renderer/state/node-tasks';

let seq = 0;
const state = (key: string, from: 'waiting' | 'running', to: 'running' | 'erred' | 'done'): EngineEvent => ({ type: 'task-state', seq: ++seq, t: seq, runId: 'r', key, node: 'x', from, to, cause: 0 });

describe('NodeTasks: cancelled is not erred', () => {
  it('counts the tasks a cancel stopped as cancelled, and a task with its own error as erred', () => {
    const t = new NodeTasks();
    t.addEvents([state('x-0', 'waiting', 'running'), state('x-1', 'waiting', 'running'), state('x-2', 'waiting', 'running')]);
    expect(t.runningOf('x')).toBe(3);
    t.addEvents([
      { type: 'task-error', seq: ++seq, t: seq, runId: 'r', key: 'x-0', node: 'x', worker: 'cpu0', message: 'boom', cause: 0 },
      state('x-0', 'running', 'erred'),
      state('x-1', 'running', 'erred'),
      state('x-2', 'running', 'erred'),
    ]);
    // Before the run says why it ended, all three erred.
    expect([t.erredOf('x'), t.cancelled]).toEqual([3, false]);
    t.addEvents([{ type: 'run', seq: ++seq, t: seq, runId: 'r', state: 'cancelled' }]);
    expect([t.erredOf('x'), t.runningOf('x'), t.cancelled]).toEqual([1, 0, true]);
    t.clear();
    expect([t.erredOf('x'), t.cancelled]).toEqual([0, false]);
  });
});
