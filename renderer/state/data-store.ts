/**
 * Server-side lists the views show: workers, examples, history, benchmarks, a comparison, and
 * which view is open. Plain zustand store; the session fills it.
 */
import { createStore } from 'zustand/vanilla';
import type { ExampleInfo, QueueEntry, WorkerInfo } from '../../common/api';
import type { BenchmarkRecord, RunComparison, RunRecord, RunSummary } from '../../common/store-types';

export type View = 'editor' | 'history' | 'benchmarks';

export interface DataState {
  view: View;
  workers: WorkerInfo[];
  examples: ExampleInfo[];
  history: RunSummary[];
  /** The stored run whose events the task stream shows, when one is opened from history. */
  openedRun: RunRecord | null;
  compareIds: number[];
  comparison: RunComparison | null;
  benchmarks: BenchmarkRecord[];
  bench: { id: string | null; running: boolean; error: string | null; last: BenchmarkRecord | null };
  connection: 'connecting' | 'online' | 'error';
  loadError: string | null;
  /** The service's run queue (the running entry first), from 'queue' events. */
  queue: QueueEntry[];
  /** The node whose result (a leaderboard, a table) is open at full width over the editor, if any. */
  wideResult: string | null;
  set(partial: Partial<Omit<DataState, 'set'>>): void;
}

export const createDataStore = () =>
  createStore<DataState>()((set) => ({
    view: 'editor',
    workers: [],
    examples: [],
    history: [],
    openedRun: null,
    compareIds: [],
    comparison: null,
    benchmarks: [],
    bench: { id: null, running: false, error: null, last: null },
    connection: 'connecting',
    loadError: null,
    queue: [],
    wideResult: null,
    set: (partial) => set(partial),
  }));

export type DataStore = ReturnType<typeof createDataStore>;
