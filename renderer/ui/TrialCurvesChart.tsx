/** Per-trial loss and metric curves of a search on two <canvas>es, redrawn once per frame from the TrialCurves channel; they shrink with a narrow panel (aspect kept). */
import { useEffect, useRef } from 'react';
import { curveScale, seriesColor, toPixels, type CurvePoint } from '../logic/curve-scale';
import type { TrialCurves } from '../state/trial-curves';
import { useSession } from './hooks';

const W = 300;
const H = 150;
const PAD = 22;

function drawCurves(canvas: HTMLCanvasElement, title: string, series: CurvePoint[][], colors: string[], highlight: number) {
  const dpr = globalThis.devicePixelRatio || 1;
  if (canvas.width !== W * dpr) {
    canvas.width = W * dpr;
    canvas.height = H * dpr;
  }
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  const s = curveScale(series, { width: W, height: H, pad: PAD });
  ctx.strokeStyle = '#ccc';
  ctx.strokeRect(PAD, PAD, W - 2 * PAD, H - 2 * PAD);
  ctx.fillStyle = '#555';
  ctx.font = '10px sans-serif';
  ctx.fillText(title, PAD, 12);
  ctx.fillText(s.y1.toPrecision(3), 2, PAD + 8);
  ctx.fillText(s.y0.toPrecision(3), 2, H - PAD);
  ctx.fillText(`epoch ${s.x0}–${s.x1}`, W - PAD - 70, H - 6);
  series.forEach((pts, i) => {
    const px = toPixels(pts, s);
    if (px.length === 0) return;
    ctx.strokeStyle = colors[i];
    ctx.fillStyle = colors[i];
    ctx.lineWidth = i === highlight ? 2.5 : 1;
    ctx.beginPath();
    px.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.stroke();
    if (px.length === 1) ctx.fillRect(px[0][0] - 1.5, px[0][1] - 1.5, 3, 3);
  });
}

function curvesOf(log: TrialCurves, node: string) {
  const own = log.curves(node);
  if (own.length) return own;
  const nodes = log.nodes();
  return nodes.length === 1 ? log.curves(nodes[0]) : [];
}

/** `order`: trial ids best first, so colours follow the leaderboard; `best` is drawn thicker. */
export function TrialCurvesChart({ node, order, best }: { node: string; order: string[]; best: string | null }) {
  const log = useSession().curves;
  const lossRef = useRef<HTMLCanvasElement>(null);
  const metricRef = useRef<HTMLCanvasElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const orderKey = order.join('\u0000');
  useEffect(() => {
    let frame = 0;
    const draw = () => {
      frame = 0;
      const rank = new Map(order.map((t, i) => [t, i]));
      const cs = [...curvesOf(log, node)].sort((a, b) => (rank.get(a.trial) ?? 1e9) - (rank.get(b.trial) ?? 1e9) || a.trial.localeCompare(b.trial));
      const hi = cs.findIndex((c) => c.trial === best);
      // Colours follow the leaderboard's rows (trials not on it yet come after them).
      const colors = cs.map((c, i) => seriesColor(rank.get(c.trial) ?? order.length + i));
      if (lossRef.current) drawCurves(lossRef.current, 'loss', cs.map((c) => c.loss), colors, hi);
      if (metricRef.current) drawCurves(metricRef.current, cs[0]?.metric ?? 'metric', cs.map((c) => c.value), colors, hi);
      if (wrapRef.current) {
        wrapRef.current.dataset.trials = String(cs.length);
        wrapRef.current.dataset.points = String(cs.reduce((n, c) => n + c.loss.length, 0));
      }
    };
    const request = () => {
      if (!frame) frame = requestAnimationFrame(draw);
    };
    const unsub = log.subscribe(request);
    request();
    return () => {
      unsub();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [log, node, orderKey, best]);
  return (
    <div ref={wrapRef} className="gf-curves" data-testid="trial-curves">
      <canvas ref={lossRef} style={{ width: '100%', maxWidth: W, height: 'auto' }} aria-label="loss per trial" />
      <canvas ref={metricRef} style={{ width: '100%', maxWidth: W, height: 'auto' }} aria-label="metric per trial" />
    </div>
  );
}
