import { describe, expect, it } from 'vitest';
import { lifecycleStep, type LifecycleEvent, type WorkerPhase } from '../../../worker/lifecycle';

/** Runs events from the first phase, returning each step's phase and action kind. */
function walk(events: LifecycleEvent[]): string[] {
  let phase: WorkerPhase = 'awaiting-init';
  return events.map((e) => {
    const s = lifecycleStep(phase, e);
    phase = s.phase;
    return `${s.phase}:${s.action.do}${s.action.do === 'exit' ? s.action.code : ''}`;
  });
}

describe('worker lifecycle', () => {
  it('starts on init, runs tasks once ready, exits 0 on shutdown', () => {
    expect(walk(['init', 'started', 'execute', 'execute', 'shutdown'])).toEqual(['starting:init', 'ready:none', 'ready:run', 'ready:run', 'exiting:exit0']);
  });

  it('exits 1 when the start fails, and does nothing more once exiting', () => {
    expect(walk(['init', 'start-failed', 'execute', 'shutdown'])).toEqual(['starting:init', 'exiting:exit1', 'exiting:none', 'exiting:none']);
  });

  it('rejects a task before ready and a second init, naming the phase', () => {
    const early = lifecycleStep('starting', 'execute');
    expect(early).toEqual({ phase: 'starting', action: { do: 'reject', error: 'execute received while starting: tasks come after ready' } });
    expect(lifecycleStep('awaiting-init', 'execute').action).toEqual({ do: 'reject', error: 'execute received while awaiting-init: tasks come after ready' });
    expect(lifecycleStep('ready', 'init')).toEqual({
      phase: 'ready',
      action: { do: 'reject', error: 'init received while ready: a worker is initialised once' },
    });
  });

  it('exits when the parent goes, in any phase before exiting', () => {
    for (const p of ['awaiting-init', 'starting', 'ready'] as const)
      expect(lifecycleStep(p, 'parent-gone')).toEqual({ phase: 'exiting', action: { do: 'exit', code: 0 } });
  });

  it('throws on a start signal outside starting (a bug in the worker, not input)', () => {
    expect(() => lifecycleStep('ready', 'started')).toThrow('worker lifecycle: started while ready');
    expect(() => lifecycleStep('awaiting-init', 'start-failed')).toThrow('worker lifecycle: start-failed while awaiting-init');
  });
});
