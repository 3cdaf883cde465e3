/**
 * Which run the window shows, as one explicit state machine (issue 25 item 4, issue 27): the
 * session (session.ts) feeds it what happened and performs what it answers; nothing else decides
 * when the view is cleared or which run's events are shown.
 *
 *                      load a document / refused / queued behind another window's run
 *          ┌───────────────────────────────────────────────────────────────────────┐
 *          ▼                                                                       │
 *   ┌──────────┐   ask (Run, replay)   ┌───────────────────┐  id known   ┌────────┴─────────┐
 *   │   idle   │──────────────────────▶│ starting          │────────────▶│ showing(runId)   │
 *   └──────────┘                       │ (cancel remembered│             │ (cancel: sent)   │
 *     ▲      ▲                         │  until id known)  │             └──────────────────┘
 *     │      │ none running            └───────────────────┘               │  ▲  ask / our queued
 *     │  ┌───┴──────┐   queue names the running run                        │  │  entry starts
 *     │  │attaching │─────────────────────────────────────────────────────────┘
 *     │  └──────────┘  (page load)                                      (showing → starting / showing)
 *
 * Events of a run are shown only while the view shows that run; while it is `attaching` or
 * `starting` (or an entry of ours waits in the queue) they are kept, since they may be of the run
 * about to be shown. Each transition answers whether the view must be cleared (the task stream,
 * progress, curves, an opened stored run) and whether a cancel must be sent now; a pair with no
 * transition throws with the state and event named, so a new path cannot slip through unnoticed.
 */
export type RunView = { kind: 'idle' } | { kind: 'attaching' } | { kind: 'starting'; cancelAsked: boolean } | { kind: 'showing'; runId: string };

export type ViewEvent =
  /** A document was loaded (New, Open, an example, a stored run opened): nothing of a run on show. */
  | { type: 'load' }
  /** The page loads and asks the queue what is running. */
  | { type: 'attach' }
  /** The queue answered without a running run to show (or the asking failed). */
  | { type: 'attached' }
  /** The user asked for a run (Run with nothing on show, a replay): the view starts it. */
  | { type: 'ask' }
  /** The run the view is waiting for did not start now: refused, or queued behind another window's run. */
  | { type: 'not-started' }
  /** A run is to be shown: ours whose id is now known, or the running run found when attaching. */
  | { type: 'show'; runId: string }
  | { type: 'cancel' };

export interface ViewStep {
  view: RunView;
  /** Clear what the view shows of the previous run before going on. */
  clear: boolean;
  /** Send a cancel for this run id now. */
  cancel: string | null;
}

const IDLE: RunView = { kind: 'idle' };
const step = (view: RunView, clear = false, cancel: string | null = null): ViewStep => ({ view, clear, cancel });

/** The one transition function: (state, event) → next state and what to do. */
export function transition(v: RunView, e: ViewEvent): ViewStep {
  switch (e.type) {
    case 'load':
      return step(IDLE, true);
    case 'attach':
      if (v.kind === 'idle') return step({ kind: 'attaching' });
      break;
    case 'attached':
      // The page's own Run (or a load) may have overtaken the queue's answer: that stays on show.
      return step(v.kind === 'attaching' ? IDLE : v);
    case 'ask':
      return step({ kind: 'starting', cancelAsked: false }, true);
    case 'not-started':
      // A queued entry of ours refused while another run is on show leaves the view as it is.
      return step(v.kind === 'starting' ? IDLE : v);
    case 'show':
      // From `starting` the view was cleared at the click and has drawn nothing since (events of
      // runs not on show are only kept); a cancel pressed before the id was known is sent now.
      if (v.kind === 'starting') return step({ kind: 'showing', runId: e.runId }, false, v.cancelAsked ? e.runId : null);
      return step({ kind: 'showing', runId: e.runId }, true);
    case 'cancel':
      if (v.kind === 'starting') return step({ kind: 'starting', cancelAsked: true });
      if (v.kind === 'showing') return step(v, false, v.runId);
      return step(v);
  }
  throw new Error(`run view: no transition from '${v.kind}' on '${e.type}'`);
}

/** Whether events of runs not on show should be kept: the view may be about to show one of them. */
export const waitingForRun = (v: RunView): boolean => v.kind === 'attaching' || v.kind === 'starting';
