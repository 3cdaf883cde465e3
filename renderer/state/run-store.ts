/**
 * The run on show: its status, per-node progress ('progress' byNode), errors placed on nodes,
 * the result, and a replay's digest check. Low-rate (progress is one event per batch); task
 * rectangles go to the TaskLog instead.
 */
import { createStore } from 'zustand/vanilla';
import type { RunResultMessage } from '../../common/api';
import type { EngineEvent } from '../../common/events';
import { placeErrors } from '../logic/validation-errors';

export type RunStatus = 'idle' | 'starting' | 'running' | 'finished' | 'failed' | 'cancelled';

export interface RunState {
  status: RunStatus;
  runId: string | null;
  storeId: number | null;
  progress: Record<string, [number, number]>;
  done: number;
  total: number;
  nodeErrors: Record<string, string[]>;
  generalErrors: string[];
  result: RunResultMessage['result'] | null;
  /** Nodes of the graph the run covers (run selected: the node and its upstream); null: all. */
  scope: string[] | null;
  /** Nodes none of whose tasks ran: the result cache held them or what they fed ('reused' event). */
  reused: string[];
  reusedTasks: number;
  /** Set while a replay runs: the run it repeats and that run's digest. */
  replayOf: { storeId: number; digest: string | null } | null;
  tasksEstimate: number | null;

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
  generalErrors: [],
  result: null,
  replayOf: null,
  tasksEstimate: null,
  scope: null,
  reused: [],
  reusedTasks: 0,
};

export const createRunStore = () =>
  createStore<RunState>()((set, get) => ({
    ...initial,
    starting: (replayOf) => set({ ...initial, status: 'starting', replayOf: replayOf ?? null }),
    started: (runId, storeId, scope = null) => set({ runId, storeId, scope, status: get().status === 'starting' ? 'running' : get().status }),
    refused(errors) {
      const placed = placeErrors(errors);
      set({ status: 'failed', nodeErrors: placed.byNode, generalErrors: placed.general });
    },
    setValidation(errors, tasks) {
      if (get().status === 'running' || get().status === 'starting') return;
      const placed = placeErrors(errors);
      set({ nodeErrors: placed.byNode, generalErrors: placed.general, tasksEstimate: tasks });
    },
    onEvent(e) {
      const { runId } = get();
      if (!('runId' in e) || runId === null || e.runId !== runId) return;
      if (e.type === 'progress') set({ progress: e.byNode, done: e.done, total: e.total });
      else if (e.type === 'reused') set({ reused: e.nodes, reusedTasks: e.tasks });
      else if (e.type === 'task-error') {
        const prev = get().nodeErrors[e.node] ?? [];
        set({ nodeErrors: { ...get().nodeErrors, [e.node]: [...prev, e.message] } });
      } else if (e.type === 'run' && e.state !== 'started') {
        // The result message carries the details; this covers a result lost with a dropped socket.
        if (get().status === 'running') set({ status: e.state, generalErrors: e.error ? [e.error] : get().generalErrors });
      }
    },
    onResult(r) {
      if (r.runId !== get().runId) return;
      const nodeErrors = { ...get().nodeErrors };
      if (r.errorNode && r.error) nodeErrors[r.errorNode] = [...(nodeErrors[r.errorNode] ?? []), r.error];
      set({
        result: r,
        status: r.status,
        storeId: r.storeId ?? get().storeId,
        nodeErrors,
        generalErrors: r.error && !r.errorNode ? [r.error] : get().generalErrors,
      });
    },
    reset: () => set({ ...initial }),
  }));

export type RunStore = ReturnType<typeof createRunStore>;
