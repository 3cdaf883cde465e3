/** The one place React meets the stores: a context for the session and narrow selector hooks. */
import { createContext, useContext, useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { DataState } from '../state/data-store';
import type { EditorState } from '../state/editor-store';
import type { RunState } from '../state/run-store';
import type { Session } from '../state/session';

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession: no SessionContext provider above this component');
  return s;
}

export const useEditor = <T,>(sel: (s: EditorState) => T): T => useStore(useSession().editor, sel);
export const useRun = <T,>(sel: (s: RunState) => T): T => useStore(useSession().run, sel);
export const useData = <T,>(sel: (s: DataState) => T): T => useStore(useSession().data, sel);

/** Re-renders at most once per frame when a Versioned store (TaskLog, NodeTasks, TrialCurves) changes. */
export function useVersion(sub: (fn: () => void) => () => void): number {
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
