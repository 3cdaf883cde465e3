/** The one place React meets the stores: a context for the session and narrow selector hooks. */
import { createContext, useContext, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { useStore } from 'zustand';
import type { DataState } from '../state/data-store';
import type { EditorState } from '../state/editor-store';
import type { RunState } from '../state/run-store';
import type { Session } from '../state/session';
import { throttleGroup, type Subscribe } from '../state/throttle';

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession: no SessionContext provider above this component');
  return s;
}

export const useEditor = <T,>(sel: (s: EditorState) => T): T => useStore(useSession().editor, sel);
export const useRun = <T,>(sel: (s: RunState) => T): T => useStore(useSession().run, sel);
export const useData = <T,>(sel: (s: DataState) => T): T => useStore(useSession().data, sel);

/**
 * How often what shows counts of a streaming run (progress, done/total) re-renders: a few times a
 * second. Without it every progress event re-rendered every node card, the progress bars, the
 * task stream's component and the toolbar: React's commit was most of the page's script in the
 * long tasks of an 11 000-task replay (docs/performance.md).
 */
export const COUNTS_MS = 250;

/** The counts' one clock (state/throttle.ts): every count on the page re-renders in the same commit. */
const counts = throttleGroup(COUNTS_MS);

/** `source`'s changes, heard at the counts' ticks (at most one per COUNTS_MS). */
export const countsSubscribe = (source: Subscribe): Subscribe => counts.wrap(source);

/**
 * useRun for counts: re-renders on the run store's changes at most once per COUNTS_MS, at the
 * same tick as every other count (a trailing render shows the last state). `sel` must return a stored value or a primitive (it is compared
 * with Object.is, as useSyncExternalStore requires). A render for any other reason reads the
 * current state.
 */
export function useRunCounts<T>(sel: (s: RunState) => T): T {
  const store = useSession().run;
  const sub = useMemo(() => countsSubscribe((fn) => store.subscribe(fn)), [store]);
  return useSyncExternalStore(sub, () => sel(store.getState()));
}

/** Re-renders at most once per frame when a Versioned store (TaskLog, NodeTasks, TrialCurves) changes. */
export function useVersion(sub: Subscribe): number {
  const [v, setV] = useState(0);
  useEffect(() => {
    let frame = 0;
    const unsub = sub(() => {
      if (!frame) frame = requestAnimationFrame(() => ((frame = 0), setV((x) => x + 1)));
    });
    return () => {
      unsub();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [sub]);
  return v;
}
