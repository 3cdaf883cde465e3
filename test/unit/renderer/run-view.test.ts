import { describe, expect, it } from 'vitest';
import { transition, waitingForRun, type RunView, type ViewEvent } from '../../../renderer/state/run-view';

/** Runs events through the machine, collecting what it said to do. */
function walk(events: ViewEvent[], from: RunView = { kind: 'idle' }) {
  let v = from;
  const did: string[] = [];
  for (const e of events) {
    const s = transition(v, e);
    v = s.view;
    if (s.clear) did.push('clear');
    if (s.cancel) did.push(`cancel ${s.cancel}`);
  }
  return { view: v, did };
}

describe('the run view state machine', () => {
  it('a cancel pressed before the run id is known is sent when it is, and the view is cleared once per run', () => {
    const r = walk([{ type: 'ask' }, { type: 'cancel' }, { type: 'show', runId: 'r1' }]);
    expect(r.view).toEqual({ kind: 'showing', runId: 'r1' });
    expect(r.did).toEqual(['clear', 'cancel r1']);
  });

  it('a page load attaches to the running run, or goes idle when none runs', () => {
    expect(walk([{ type: 'attach' }, { type: 'show', runId: 'r9' }, { type: 'attached' }]).view).toEqual({ kind: 'showing', runId: 'r9' });
    const none = walk([{ type: 'attach' }, { type: 'attached' }]);
    expect(none.view).toEqual({ kind: 'idle' });
    expect(none.did).toEqual([]);
  });

  it('keeps events only while it may be about to show a run', () => {
    expect(waitingForRun({ kind: 'attaching' })).toBe(true);
    expect(waitingForRun({ kind: 'starting', cancelAsked: false })).toBe(true);
    expect(waitingForRun({ kind: 'showing', runId: 'r' })).toBe(false);
    expect(waitingForRun({ kind: 'idle' })).toBe(false);
  });

  it('a refusal while starting goes back to idle; while another run is on show the view stays', () => {
    expect(walk([{ type: 'ask' }, { type: 'not-started' }]).view).toEqual({ kind: 'idle' });
    expect(walk([{ type: 'not-started' }], { kind: 'showing', runId: 'r' }).view).toEqual({ kind: 'showing', runId: 'r' });
  });

  it('a cancel of the run on show is sent at once; with nothing on show it does nothing', () => {
    expect(walk([{ type: 'cancel' }], { kind: 'showing', runId: 'r2' }).did).toEqual(['cancel r2']);
    expect(walk([{ type: 'cancel' }]).did).toEqual([]);
  });

  it('loading a document clears whatever was on show', () => {
    expect(walk([{ type: 'load' }], { kind: 'showing', runId: 'r' })).toEqual({ view: { kind: 'idle' }, did: ['clear'] });
  });

  it('refuses a transition it does not know, naming the state and event', () => {
    expect(() => transition({ kind: 'showing', runId: 'r' }, { type: 'attach' })).toThrow("run view: no transition from 'showing' on 'attach'");
  });
});
