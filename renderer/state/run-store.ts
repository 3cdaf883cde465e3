/**
 * The run on show: its status, per-node progress ('progress' byNode), errors placed on nodes,
 * the result, and a replay's digest check. Low-rate (progress is one event per batch); task
 * rectangles go to the TaskLog instead.
 */
import { createStore } from 'zustand/vanilla';
import type { RunResultMessage } from '../../common/api';
import type { EngineEvent } from '../../common/events';
import { placeErrors } from '../logic/validation-errors';

/** `refused`: the server would not start the run (its errors are in `serverErrors`, each naming its node and field). */
export type RunStatus = 'idle' | 'starting' | 'running' | 'finished' | 'failed' | 'cancelled' | 'refused';

export interface RunState {
  status: RunStatus;
  runId: string | null;
  storeId: number | null;
  progress: Record<string, [number, number]>;
  done: number;
  total: number;
  /** Runtime errors of the run on show, per node. */
  nodeErrors: Record<string, string[]>;
  /** Validation problems (the server's, or a refused run's), per node, in plain words. */
  nodeIssues: Record<string, string[]>;
  /** Server validation messages under the fields they name: node id → param → plain message. */
  fieldErrors: Record<string, Record<string, string>>;
  generalErrors: string[];
  /** The server's validation messages as it gave them (a refused run's 400, or /api/validate): the problems list reads them. */
  serverErrors: string[];
  result: RunResultMessage['result'] | null;
  /** Nodes of the graph the run covers (run selected: the node and its upstream); null: all. */
  scope: string[] | null;
  /** Nodes none of whose tasks ran: the result cache held them or what they fed ('reused' event). */
  reused: string[];
  reusedTasks: number;
  /** Set while a replay runs: the run it repeats and that run's digest. */
  replayOf: { storeId: number; digest: string | null } | null;
  tasksEstimate: number | null;
  /** Node signatures (logic/node-signature.ts) as of the last run that computed each node. */
  doneSigs: Record<string, string>;
  /** Signatures of the nodes the run on show covers, taken when it was asked for. */
  pendingSigs: Record<string, string>;
  setPendingSigs(sigs: Record<string, string>): void;

  starting(replayOf?: { storeId: number; digest: string | null }): void;
  started(runId: string, storeId: number | null, scope?: string[] | null): void;
  refused(errors: string[]): void;
  setValidation(errors: string[], tasks: number | null): void;
  onEvent(e: EngineEvent): void;
  onResult(r: RunResultMessage['result']): void;
  reset(): void;
}

const initial = {
  status: 'idle' as RunStatus,
  runId: null,
  storeId: null,
  progress: {},
  done: 0,
  total: 0,
  nodeErrors: {},
  nodeIssues: {},
  fieldErrors: {},
  generalErrors: [],
  serverErrors: [],
  result: null,
  replayOf: null,
  tasksEstimate: null,
  scope: null,
  reused: [],
  reusedTasks: 0,
  pendingSigs: {},
};

export const createRunStore = () =>
  createStore<RunState>()((set, get) => ({
    ...initial,
    doneSigs: {},
    // What earlier runs computed stays known (done / stale); the rest starts afresh.
    starting: (replayOf) => set({ ...initial, status: 'starting', replayOf: replayOf ?? null, doneSigs: get().doneSigs }),
    setPendingSigs: (pendingSigs) => set({ pendingSigs }),
    started: (runId, storeId, scope = null) => set({ runId, storeId, scope, status: get().status === 'starting' ? 'running' : get().status }),
    refused(errors) {
      const placed = placeErrors(errors);
      set({ status: 'refused', nodeErrors: {}, nodeIssues: placed.byNode, fieldErrors: placed.byField, generalErrors: placed.general, serverErrors: errors });
    },
    setValidation(errors, tasks) {
      if (get().status === 'running' || get().status === 'starting') return;
      const placed = placeErrors(errors);
      set({ nodeIssues: placed.byNode, fieldErrors: placed.byField, generalErrors: placed.general, serverErrors: errors, tasksEstimate: tasks });
    },
    onEvent(e) {
      const { runId } = get();
      if (!('runId' in e) || runId === null || e.runId !== runId) return;
      if (e.type === 'progress') set({ progress: e.byNode, done: e.done, total: e.total });
      else if (e.type === 'reused') set({ reused: e.nodes, reusedTasks: e.tasks });
      else if (e.type === 'task-error') {
        // One message per node however many of its tasks fail the same way.
        const prev = get().nodeErrors[e.node] ?? [];
        if (!prev.includes(e.message)) set({ nodeErrors: { ...get().nodeErrors, [e.node]: [...prev, e.message] } });
      } else if (e.type === 'run' && e.state !== 'started') {
        // The result message carries the details; this covers a result lost with a dropped socket.
        if (get().status === 'running') set({ status: e.state, generalErrors: e.error && !shownOnNode(get().nodeErrors, e.error) ? [e.error] : get().generalErrors });
      }
    },
    onResult(r) {
      if (r.runId !== get().runId) return;
      const nodeErrors = { ...get().nodeErrors };
      if (r.errorNode && r.error && !nodeErrors[r.errorNode]?.includes(r.error)) nodeErrors[r.errorNode] = [...(nodeErrors[r.errorNode] ?? []), r.error];
      // A runtime error is shown once: on its node when it has one, else in the strip.
      const general = r.error && !r.errorNode && !shownOnNode(nodeErrors, r.error) ? [r.error] : get().generalErrors.filter((g) => !shownOnNode(nodeErrors, g));
      // Nodes that finished (all, or those whose tasks all completed before a failure) are computed as of their signatures.
      const finished = Object.keys(get().pendingSigs).filter((id) => r.status === 'finished' || (get().progress[id] && get().progress[id][0] >= get().progress[id][1] && get().progress[id][1] > 0));
      const doneSigs = { ...get().doneSigs };
      for (const id of finished) doneSigs[id] = get().pendingSigs[id];
      set({
        doneSigs,
        // A digest fingerprints a whole result: a cancelled or failed run's partial outputs get
        // none, so nothing on screen can pass a partial run off as comparable to a complete one.
        result: r.status === 'finished' ? r : { ...r, digest: '' },
        status: r.status,
        storeId: r.storeId ?? get().storeId,
        nodeErrors,
        generalErrors: [...new Set(general)],
      });
    },
    reset: () => set({ ...initial, doneSigs: {} }),
  }));

function shownOnNode(byNode: Record<string, string[]>, message: string): boolean {
  return Object.values(byNode).some((list) => list.some((m) => m === message || message.includes(m)));
}

export type RunStore = ReturnType<typeof createRunStore>;
