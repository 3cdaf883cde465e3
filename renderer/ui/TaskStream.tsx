/**
 * The live task stream on a <canvas>: redraws at most once per frame when the TaskLog changes.
 * Wheel zooms around the cursor, shift+wheel or drag scrolls; "Fit" (or a new run) follows the
 * whole run again. Hover shows a task; clicking one selects its graph node, and selecting a node
 * highlights its tasks. The canvas carries what was really drawn (data-lane-counts) for tests.
 */
import { useEffect, useRef, useState } from 'react';
import { AXIS_H, LABEL_W, LANE_H, drawStream, fitView, formatBytes, formatMs, hitTest, type StreamView } from '../logic/stream-draw';
import { KIND_ERROR, KIND_TRANSFER } from '../state/task-log';
import { useData, useEditor, useSession } from './hooks';

export function TaskStream() {
  const session = useSession();
  const log = session.log;
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const view = useRef<StreamView>({ startMs: 0, msPerPx: 1 });
  const follow = useRef(true);
  const [hover, setHover] = useState<{ x: number; y: number; i: number } | null>(null);
  const highlight = useEditor((s) => (s.selectedNodes.length === 1 ? s.selectedNodes[0] : null));
  const opened = useData((s) => s.openedRun);
  const highlightRef = useRef(highlight);
  const redrawRef = useRef<() => void>(() => undefined);

  useEffect(() => {
    let frame = 0;
    const draw = () => {
      frame = 0;
      const canvas = canvasRef.current;
      const wrap = wrapRef.current;
      if (!canvas || !wrap) return;
      const width = Math.max(200, wrap.clientWidth);
      const height = AXIS_H + Math.max(1, log.lanes.length) * LANE_H;
      const dpr = globalThis.devicePixelRatio || 1;
      if (canvas.width !== width * dpr || canvas.height !== height * dpr) {
        canvas.width = width * dpr;
        canvas.height = height * dpr;
        canvas.style.width = `${width}px`;
        canvas.style.height = `${height}px`;
      }
      if (follow.current) view.current = fitView(log, width - LABEL_W);
      const ctx = canvas.getContext('2d');
      if (!ctx) return;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      const stats = drawStream(ctx, log, view.current, width, highlightRef.current);
      canvas.dataset.laneCounts = JSON.stringify(stats.tasksByLane);
      canvas.dataset.lanes = String(log.lanes.length);
      canvas.dataset.rects = String(stats.rects);
      canvas.dataset.aggregated = String(stats.aggregated);
      canvas.dataset.items = String(log.n);
    };
    const request = () => {
      if (!frame) frame = requestAnimationFrame(draw);
    };
    redrawRef.current = request;
    const unsub = log.subscribe(request);
    const ro = new ResizeObserver(request);
    if (wrapRef.current) ro.observe(wrapRef.current);
    request();
    return () => {
      unsub();
      ro.disconnect();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [log]);

  useEffect(() => {
    highlightRef.current = highlight;
    redrawRef.current();
  }, [highlight]);

  // A new run (log cleared) follows again.
  useEffect(() => session.run.subscribe((s, p) => {
    if (s.status === 'starting' && p.status !== 'starting') follow.current = true;
  }), [session]);
  useEffect(() => {
    follow.current = true;
    redrawRef.current();
  }, [opened]);

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
    const i = hitTest(log, view.current, e.clientX - rect.left, e.clientY - rect.top);
    setHover(i >= 0 ? { x: e.clientX - rect.left, y: e.clientY - rect.top, i } : null);
  };
  const onMouseUp = (e: React.MouseEvent) => {
    const d = drag.current;
    drag.current = null;
    if (d?.moved) return;
    const rect = canvasRef.current!.getBoundingClientRect();
    const i = hitTest(log, view.current, e.clientX - rect.left, e.clientY - rect.top);
    const node = i >= 0 ? log.nodes[i] : '';
    if (node) session.editor.getState().select([node], []);
  };

  const h = hover && hover.i < log.n ? hover.i : -1;
  return (
    <div className="gf-stream" ref={wrapRef}>
      <div className="gf-stream-bar">
        <strong>Task stream</strong>
        {opened && <span className="gf-muted"> — stored run #{opened.id} ({opened.workflowName})</span>}
        <button
          onClick={() => {
            follow.current = true;
            redrawRef.current();
          }}
        >
          Fit
        </button>
        <span className="gf-muted">wheel: zoom · shift+wheel / drag: scroll · click: select node</span>
      </div>
      <canvas
        ref={canvasRef}
        data-testid="task-stream"
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
        <div className="gf-tooltip" style={{ left: Math.min(hover!.x + 12, (wrapRef.current?.clientWidth ?? 400) - 260), top: hover!.y + 40 }} data-testid="task-tooltip">
          <div>
            <strong>{log.kind[h] === KIND_TRANSFER ? 'transfer' : log.kind[h] === KIND_ERROR ? 'error' : log.ops[log.op[h]]}</strong> {log.keys[h]}
          </div>
          <div>worker {log.lanes[log.lane[h]]?.label}</div>
          <div>
            {formatMs(log.end[h] - log.start[h])} · {formatBytes(log.bytes[h])}
            {log.backends[h] ? ` · ${log.backends[h]}` : ''}
          </div>
        </div>
      )}
    </div>
  );
}
