/**
 * The worker process's lifecycle as one pure transition function, so what a message does in each
 * phase is read in one table instead of inferred from which module globals are set.
 *
 *   awaiting-init --init--> starting --started--> ready --shutdown | parent-gone--> exiting
 *         |                    |                    (execute, release, fetch: served)
 *         |                    +--start-failed--> exiting (exit code 1)
 *         +---------------- shutdown | parent-gone ----------------> exiting
 *
 * Tasks are accepted only in `ready`: main sends them after the worker's `ready` message, so an
 * execute earlier is a protocol error, logged and dropped (as is a second init). How many tasks
 * run at once is the slot queue's business (worker/main.ts), not a phase.
 */
export type WorkerPhase = 'awaiting-init' | 'starting' | 'ready' | 'exiting';

export type LifecycleEvent = 'init' | 'started' | 'start-failed' | 'execute' | 'shutdown' | 'parent-gone';

/** What the process does on the event: begin init, run the task, drop it with a logged error, or exit with a code. */
export type LifecycleAction = { do: 'init' } | { do: 'run' } | { do: 'none' } | { do: 'reject'; error: string } | { do: 'exit'; code: 0 | 1 };

export interface LifecycleStep {
  phase: WorkerPhase;
  action: LifecycleAction;
}

export function lifecycleStep(phase: WorkerPhase, event: LifecycleEvent): LifecycleStep {
  // Once exiting, nothing else happens: the process is on its way out.
  if (phase === 'exiting') return { phase, action: { do: 'none' } };
  switch (event) {
    case 'shutdown':
    case 'parent-gone':
      return { phase: 'exiting', action: { do: 'exit', code: 0 } };
    case 'init':
      if (phase === 'awaiting-init') return { phase: 'starting', action: { do: 'init' } };
      return { phase, action: { do: 'reject', error: `init received while ${phase}: a worker is initialised once` } };
    case 'started':
      if (phase === 'starting') return { phase: 'ready', action: { do: 'none' } };
      throw new Error(`worker lifecycle: started while ${phase}`);
    case 'start-failed':
      if (phase === 'starting') return { phase: 'exiting', action: { do: 'exit', code: 1 } };
      throw new Error(`worker lifecycle: start-failed while ${phase}`);
    case 'execute':
      if (phase === 'ready') return { phase, action: { do: 'run' } };
      return { phase, action: { do: 'reject', error: `execute received while ${phase}: tasks come after ready` } };
  }
}
