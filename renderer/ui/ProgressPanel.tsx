/**
 * The run's progress, one bar per graph node as on Dask's progress page (logic/progress-draw.ts):
 * done, running, erred and waiting tasks in four colours, with counts; after a cancel, the tasks it
 * stopped in a colour of their own (they did not fail), named in the legend only then so it stays
 * short. The bars are drawn on a canvas from the session's batched events, as the task stream is:
 * progress events do not re-render React (the component renders when the run starts or is
 * cancelled, the theme changes or the legend must change), and the canvas redraws on the counts'
 * clock (countsSubscribe: in the same task as the node cards' counts and the run status, so the
 * bars never lag the status) and only when what it shows changed: each canvas
 * update is a raster and a commit to the compositor, the largest part of the long tasks left in
 * the 11 000-task replay (docs/performance.md). The canvas carries what it drew (data-bars: counts and segment positions) for
 * tests, its hover text names a bar's counts, and its aria-label sums them up.
 */
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { describeBar, drawProgress, LIGHT_PROGRESS, progressHeight, progressRows, rowAt, type BarGeometry, type ProgressColors } from '../logic/progress-draw';
import { cssToken } from '../logic/theme';
import { countsSubscribe, useRun, useSession } from './hooks';
import { useThemeContext } from './theme-hook';

function themeColors(): ProgressColors {
  const t = (name: string, fb: string) => cssToken(name, fb);
  return {
    text: t('--text', LIGHT_PROGRESS.text),
    muted: t('--text-muted', LIGHT_PROGRESS.muted),
    done: t('--seg-done', LIGHT_PROGRESS.done),
    running: t('--seg-running', LIGHT_PROGRESS.running),
    erred: t('--seg-erred', LIGHT_PROGRESS.erred),
    cancelled: t('--seg-cancelled', LIGHT_PROGRESS.cancelled),
    waiting: t('--seg-waiting', LIGHT_PROGRESS.waiting),
  };
}

export function ProgressPanel() {
  const session = useSession();
  const status = useRun((s) => s.status);
  // Booleans only: React hears when they flip, not every progress event.
  const hasRun = useRun((s) => Object.keys(s.progress).length > 0);
  const cancelledSub = useMemo(() => (fn: () => void) => session.nodeTasks.subscribe(fn), [session]);
  const cancelled = useSyncExternalStore(cancelledSub, () => session.nodeTasks.cancelled);
  const { theme } = useThemeContext();
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const bars = useRef<BarGeometry[]>([]);
  const colors = useRef<ProgressColors>(LIGHT_PROGRESS);
  const redraw = useRef<() => void>(() => undefined);
  /** What the canvas shows now (size and rows): a redraw that would draw the same is skipped. */
  const shownKey = useRef('');

  useEffect(() => {
    let frame = 0;
    const draw = () => {
      if (frame) cancelAnimationFrame(frame);
      frame = 0;
      const canvas = canvasRef.current;
      const wrap = wrapRef.current;
      if (!canvas || !wrap) return;
      const { graph } = session.editor.getState();
      const rows = Object.keys(session.run.getState().progress).length ? progressRows(graph.nodes, graph.edges, session.run.getState().progress, session.nodeTasks) : [];
      const width = Math.max(60, wrap.clientWidth);
      const height = rows.length ? progressHeight(rows.length) : 0;
      const dpr = globalThis.devicePixelRatio || 1;
      const key = `${width}x${height}@${dpr} ${JSON.stringify(rows)}`;
      if (key === shownKey.current) return;
      shownKey.current = key;
      if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
        canvas.width = Math.round(width * dpr);
        canvas.height = Math.round(height * dpr);
        canvas.style.width = `${width}px`;
        canvas.style.height = `${height}px`;
      }
      const ctx = canvas.getContext('2d');
      if (!ctx) return;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      bars.current = drawProgress(ctx, rows, width, colors.current);
      // Written only when they change: each attribute write invalidates the canvas's style.
      const text = JSON.stringify(bars.current);
      if (canvas.dataset.bars !== text) canvas.dataset.bars = text;
      const done = rows.reduce((a, r) => a + r.seg.done, 0);
      const total = rows.reduce((a, r) => a + r.seg.total, 0);
      const label = `progress: ${done} of ${total} tasks done`;
      if (canvas.getAttribute('aria-label') !== label) canvas.setAttribute('aria-label', label);
    };
    const request = () => {
      if (!frame) frame = requestAnimationFrame(draw);
    };
    redraw.current = request;
    const unsubs = [countsSubscribe((fn) => session.run.subscribe(fn))(draw), countsSubscribe((fn) => session.nodeTasks.subscribe(fn))(draw), session.editor.subscribe((s, p) => s.graph !== p.graph && request())];
    const ro = new ResizeObserver(request);
    if (wrapRef.current) ro.observe(wrapRef.current);
    request();
    return () => {
      for (const u of unsubs) u();
      ro.disconnect();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [session]);

  useEffect(() => {
    colors.current = themeColors();
    shownKey.current = '';
    redraw.current();
  }, [theme]);
  // The canvas is shown again when a run has progress: draw it at once.
  useEffect(() => redraw.current(), [hasRun]);

  const onMouseMove = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const b = bars.current[rowAt(e.clientY - rect.top, bars.current.length)];
    const title = b ? describeBar(b) : '';
    if (e.currentTarget.title !== title) e.currentTarget.title = title;
  };

  return (
    <section className="gf-progress-panel gf-panel" data-testid="progress-panel">
      <header className="gf-panel-head">
        <strong>Progress</strong>
        <span className="gf-legend-inline">
          <i className="seg-done" /> done <i className="seg-running" /> running <i className="seg-erred" /> erred{' '}
          {cancelled && (
            <>
              <i className="seg-cancelled" /> cancelled{' '}
            </>
          )}
          <i className="seg-waiting" /> waiting
        </span>
      </header>
      <div className="gf-panel-body">
        {!hasRun && <p className="gf-muted">{status === 'starting' ? 'Starting…' : 'Run the workflow to see one bar per node.'}</p>}
        <div ref={wrapRef} className="gf-pbars" hidden={!hasRun}>
          <canvas ref={canvasRef} role="img" data-testid="progress-bars" onMouseMove={onMouseMove} />
        </div>
      </div>
    </section>
  );
}
