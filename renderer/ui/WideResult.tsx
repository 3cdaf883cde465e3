/**
 * A result too wide for the inspector (a search leaderboard, a table) opened over the editor's
 * main area at full width, where its headers sit on one line and each trial's params read whole.
 * The inspector and the results panel offer it with an "expand" button (ui/ExpandResult.tsx); Close or Escape returns to
 * the canvas (the canvas stays mounted underneath, so its view is as it was).
 */
import { useEffect, useRef } from 'react';
import { useData, useRun, useSession } from './hooks';
import { Value } from './ResultsPanel';

export function WideResult() {
  const session = useSession();
  const id = useData((s) => s.wideResult);
  const v = useRun((s) => (id ? s.result?.results[id] : undefined));
  const runNo = useRun((s) => s.result?.storeId ?? null);
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!id) return;
    // The expand button that opened it is now covered: the keyboard goes on from Close.
    closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && session.data.getState().set({ wideResult: null });
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [id, session]);
  if (!id) return null;
  return (
    <section className="gf-view gf-wide" data-testid="wide-result" aria-label={`result of ${id} at full width`}>
      <div className="gf-view-bar">
        <h3>
          Result of {id}
          {runNo !== null && <span className="gf-muted"> · run #{runNo}</span>}
        </h3>
        <button type="button" ref={closeRef} data-testid="close-wide" onClick={() => session.data.getState().set({ wideResult: null })}>
          Close (Esc)
        </button>
      </div>
      {v ? <Value node={id} v={v} /> : <p className="gf-muted">The run on show has no result for {id}.</p>}
    </section>
  );
}
