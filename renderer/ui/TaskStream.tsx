/**
 * The live task stream on a <canvas> that fills its panel: redraws at most once per frame when the
 * panel resizes or the view changes, and at most 20 times a second as the TaskLog grows. Wheel zooms around the cursor, shift+wheel or drag scrolls;
 * "Fit" (or a new run) follows the whole run again. A legend names each op's colour with its task
 * count. Hover shows op, node, worker, start, duration and bytes; clicking a task selects every
 * node it came from (a fused task carries several), and selecting a node highlights its tasks,
 * fused ones included. While a run is going, its running tasks grow from their start to now (a
 * timer redraws four times a second while any is running). The canvas carries what was really drawn (data-lane-counts, data-ops, data-running, data-progress: the progress labels written) for tests.
 *
 * Without props it draws the window's run (session.log); given a `log` it draws that one instead
 * (a benchmark's current run, a compared stored run), `live` saying whether its running tasks grow.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { fusedOrigins } from '../logic/fusion';
import { AXIS_H, LABEL_W, LIGHT_STREAM, drawStream, fitView, formatBytes, formatMs, hitTest, type StreamColors, type StreamView } from '../logic/stream-draw';
import { cssToken } from '../logic/theme';
import { KIND_ERROR, KIND_TRANSFER, type TaskLog } from '../state/task-log';
import { throttle } from '../state/throttle';
import { useData, useEditor, useRun, useRunCounts, useSession } from './hooks';
import { useThemeContext } from './theme-hook';

/** The shortest time between two redraws caused by new events (20 a second: smooth to the eye). */
const LIVE_REDRAW_MS = 50;

function themeColors(): StreamColors {
  const t = (name: string, fb: string) => cssToken(name, fb);
  return {
    bg: t('--surface', LIGHT_STREAM.bg),
    laneA: t('--lane-a', LIGHT_STREAM.laneA),
    laneB: t('--lane-b', LIGHT_STREAM.laneB),
    text: t('--text', LIGHT_STREAM.text),
    muted: t('--text-muted', LIGHT_STREAM.muted),
    virtual: t('--virtual', LIGHT_STREAM.virtual),
    dimmed: t('--dimmed', LIGHT_STREAM.dimmed),
    grid: t('--border-subtle', LIGHT_STREAM.grid),
  };
}

interface TaskStreamProps {
  /** The log to draw; the window's run when left out. */
  log?: TaskLog;
  /** With `log`: whether its run is going (running tasks grow to now). */
  live?: boolean;
  title?: string;
  /** The canvas's data-testid. */
  testId?: string;
  /** Fit to at least this span (ms): streams drawn one above the other share one time scale. */
  spanMs?: number;
}

export function TaskStream(props: TaskStreamProps = {}) {
  const session = useSession();
  const own = props.log === undefined;
  const log = props.log ?? session.log;
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const view = useRef<StreamView>({ startMs: 0, msPerPx: 1 });
  const laneH = useRef(26);
  const follow = useRef(true);
  const [hover, setHover] = useState<{ x: number; y: number; i: number } | null>(null);
  const [legend, setLegend] = useState<Array<[string, number]>>([]);
  const selected = useEditor((s) => s.selectedNodes);
  const nodes = useEditor((s) => s.graph.nodes);
  const edges = useEditor((s) => s.graph.edges);
  // Only which nodes have tasks (the fused origins): read a few times a second, not per event.
  const progress = useRunCounts((s) => s.progress);
  const opened = useData((s) => s.openedRun);
  const { theme } = useThemeContext();
  // Which task nodes cover which graph nodes: from the run's progress, or the stored run's tasks.
  const origins = useMemo(() => {
    const withTasks = new Set(Object.keys(progress).filter((k) => progress[k][1] > 0));
    if (!withTasks.size) for (let i = 0; i < log.n; i++) withTasks.add(log.nodes[i]);
    return fusedOrigins(nodes, edges, (id) => withTasks.has(id));
  }, [nodes, edges, progress, log, opened]);
  const highlight = useMemo(() => {
    if (selected.length !== 1) return null;
    const out = new Set<string>([selected[0]]);
    for (const [taskNode, covered] of origins) if (covered.includes(selected[0])) out.add(taskNode);
    return out;
  }, [selected, origins]);
  const highlightRef = useRef(highlight);
  const colorsRef = useRef<StreamColors>(LIGHT_STREAM);
  const redrawRef = useRef<() => void>(() => undefined);
  // Running tasks are drawn (to now) only while the run is going: a cancelled run's leftovers are not.
  const liveRef = useRef(false);
  const spanRef = useRef(props.spanMs ?? 0);
  spanRef.current = props.spanMs ?? 0;
  const status = useRun((s) => s.status);
  liveRef.current = own ? status === 'running' && opened === null : props.live === true;

  useEffect(() => {
    let frame = 0;
    let lastLegend = '';
    let legendAt = 0;
    const draw = () => {
      frame = 0;
      const canvas = canvasRef.current;
      const wrap = wrapRef.current;
      if (!canvas || !wrap) return;
      const width = Math.max(200, wrap.clientWidth);
      const height = Math.max(AXIS_H + 20, wrap.clientHeight);
      const dpr = globalThis.devicePixelRatio || 1;
      if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
        canvas.width = Math.round(width * dpr);
        canvas.height = Math.round(height * dpr);
        canvas.style.width = `${width}px`;
        canvas.style.height = `${height}px`;
      }
      // An emptied log (a benchmark's next run) follows its new run from the start.
      if (log.n === 0 && log.running.size === 0) follow.current = true;
      const now = liveRef.current && log.running.size > 0 ? Date.now() : null;
      if (follow.current) view.current = fitView(log, width - LABEL_W, now, spanRef.current);
      const ctx = canvas.getContext('2d');
      if (!ctx) return;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      const stats = drawStream(ctx, log, view.current, width, height, highlightRef.current, colorsRef.current, now);
      laneH.current = stats.laneH;
      // Written only when they change: each attribute write invalidates the canvas's style.
      const mark = (name: string, value: string) => {
        if (canvas.dataset[name] !== value) canvas.dataset[name] = value;
      };
      mark('laneCounts', JSON.stringify(stats.tasksByLane));
      mark('ops', JSON.stringify(stats.byOp));
      mark('lanes', String(log.lanes.length));
      mark('rects', String(stats.rects));
      mark('aggregated', String(stats.aggregated));
      mark('items', String(log.n));
      mark('running', JSON.stringify(stats.runningByLane));
      mark('progress', JSON.stringify(stats.progressLabels));
      const runningNow = Object.values(stats.runningByLane).reduce((a, b) => a + b, 0);
      const key = JSON.stringify([Object.keys(stats.byOp).sort(), runningNow > 0]);
      // The legend re-renders when its ops change, and its counts at most twice a second.
      const at = performance.now();
      if (key !== lastLegend || at - legendAt > 500) {
        lastLegend = key;
        legendAt = at;
        const entries = Object.entries(stats.byOp).sort((a, b) => b[1] - a[1]);
        setLegend(runningNow > 0 ? [...entries, ['running', runningNow]] : entries);
      }
    };
    const request = () => {
      if (!frame) frame = requestAnimationFrame(draw);
    };
    // New events redraw at most every LIVE_REDRAW_MS (a trailing draw shows the last batch): while a
    // run streams, a redraw per frame cost more main-thread time (fills, then the canvas's commit
    // to the compositor) than everything else on the page. Zoom, hover, resize and theme redraw at once.
    const live = throttle(request, LIVE_REDRAW_MS);
    const requestLive = () => live.call();
    redrawRef.current = request;
    const unsub = log.subscribe(requestLive);
    const ro = new ResizeObserver(request);
    if (wrapRef.current) ro.observe(wrapRef.current);
    // Running tasks grow with time, not with events: redraw while any is on show.
    const grow = setInterval(() => {
      if (liveRef.current && log.running.size > 0) requestLive();
    }, 250);
    request();
    return () => {
      unsub();
      clearInterval(grow);
      ro.disconnect();
      if (frame) cancelAnimationFrame(frame);
      live.cancel();
    };
  }, [log]);

  useEffect(() => {
    highlightRef.current = highlight;
    redrawRef.current();
  }, [highlight]);

  useEffect(() => {
    colorsRef.current = themeColors();
    redrawRef.current();
  }, [theme]);

  // A new run (log cleared) follows again.
  useEffect(
    () =>
      session.run.subscribe((s, p) => {
        if (s.status === 'starting' && p.status !== 'starting') follow.current = true;
      }),
    [session],
  );
  useEffect(() => {
    follow.current = true;
    redrawRef.current();
  }, [opened]);
  // The run ending stops its running tasks growing: one more draw without them.
  useEffect(() => redrawRef.current(), [status, props.live]);

  const onWheel = (e: React.WheelEvent) => {
    const rect = canvasRef.current!.getBoundingClientRect();
    const x = e.clientX - rect.left - LABEL_W;
    follow.current = false;
    const v = view.current;
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      v.startMs += (e.deltaX || e.deltaY) * v.msPerPx;
    } else {
      const factor = Math.exp(e.deltaY * 0.002);
      const tAt = v.startMs + x * v.msPerPx;
      v.msPerPx = Math.max(1e-4, v.msPerPx * factor);
      v.startMs = tAt - x * v.msPerPx;
    }
    redrawRef.current();
  };

  const drag = useRef<{ x: number; start: number; moved: boolean } | null>(null);
  const onMouseDown = (e: React.MouseEvent) => {
    drag.current = { x: e.clientX, start: view.current.startMs, moved: false };
  };
  const onMouseMove = (e: React.MouseEvent) => {
    const rect = canvasRef.current!.getBoundingClientRect();
    const d = drag.current;
    if (d && Math.abs(e.clientX - d.x) > 3) {
      d.moved = true;
      follow.current = false;
      view.current.startMs = d.start - (e.clientX - d.x) * view.current.msPerPx;
      redrawRef.current();
      return;
    }
    const i = hitTest(log, view.current, e.clientX - rect.left, e.clientY - rect.top, laneH.current);
    setHover(i >= 0 ? { x: e.clientX - rect.left, y: e.clientY - rect.top, i } : null);
  };
  const onMouseUp = (e: React.MouseEvent) => {
    const d = drag.current;
    drag.current = null;
    if (d?.moved) return;
    const rect = canvasRef.current!.getBoundingClientRect();
    const i = hitTest(log, view.current, e.clientX - rect.left, e.clientY - rect.top, laneH.current);
    const node = i >= 0 ? log.nodes[i] : '';
    if (node) session.editor.getState().select(origins.get(node) ?? [node], []);
  };

  const h = hover && hover.i < log.n ? hover.i : -1;
  const wrapW = wrapRef.current?.clientWidth ?? 400;
  const wrapH = wrapRef.current?.clientHeight ?? 200;
  const opName = (i: number) => (log.kind[i] === KIND_TRANSFER ? 'transfer' : log.kind[i] === KIND_ERROR ? 'error' : log.ops[log.op[i]]);
  return (
    <section className="gf-stream gf-panel">
      <header className="gf-panel-head">
        <strong>{props.title ?? 'Task stream'}</strong>
        {own && opened && (
          <span className="gf-muted gf-ellipsis">
            stored run #{opened.id} ({opened.workflowName})
          </span>
        )}
        <button
          className="gf-small"
          onClick={() => {
            follow.current = true;
            redrawRef.current();
          }}
          title="wheel: zoom · shift+wheel or drag: scroll · click a task: select its nodes"
        >
          Fit
        </button>
        <ul className="gf-legend" data-testid="stream-legend" aria-label="task colours">
          {legend.map(([op, n]) => (
            <li key={op} data-op={op} title={`${n} task${n === 1 ? '' : 's'}${op === 'running' ? ' running now' : ''}`}>
              <i className={op === 'running' ? 'gf-swatch-running' : undefined} style={op === 'running' ? undefined : { background: log.colors.of(op) }} />
              {op}
            </li>
          ))}
        </ul>
      </header>
      <div className="gf-stream-canvas" ref={wrapRef}>
        <canvas
          ref={canvasRef}
          data-testid={props.testId ?? 'task-stream'}
          onWheel={onWheel}
          onMouseDown={onMouseDown}
          onMouseMove={onMouseMove}
          onMouseUp={onMouseUp}
          onMouseLeave={() => {
            drag.current = null;
            setHover(null);
          }}
        />
        {h >= 0 && (
          <div className="gf-tooltip" style={{ left: Math.max(0, Math.min(hover!.x + 12, wrapW - 270)), top: Math.max(0, Math.min(hover!.y + 14, wrapH - 110)) }} data-testid="task-tooltip">
            <div>
              <i className="gf-swatch" style={{ background: log.colors.of(opName(h)) }} /> <strong>{opName(h)}</strong>
            </div>
            <div className="gf-ellipsis">key {log.keys[h]}</div>
            {log.nodes[h] && <div>node {(origins.get(log.nodes[h]) ?? [log.nodes[h]]).join(', ')}</div>}
            <div>worker {log.lanes[log.lane[h]]?.label}</div>
            <div>
              start +{formatMs(log.start[h] - log.t0)} · {formatMs(log.end[h] - log.start[h])}
            </div>
            <div>
              {formatBytes(log.bytes[h])}
              {log.backends[h] ? ` · ${log.backends[h]}` : ''}
            </div>
          </div>
        )}
      </div>
    </section>
  );
}
