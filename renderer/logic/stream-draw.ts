/**
 * Draws the task stream: one lane per worker, a rectangle per task coloured by op, transfers in
 * their own colour, errors black, idle white. Tasks narrower than a pixel are aggregated into
 * one-pixel columns per lane (the colour of the op that covers most of the column), so a run
 * with a million tasks draws as fast as one with a thousand. Returns what it actually drew, per
 * lane, which the page exposes for tests. Pure: takes a minimal 2D-context interface.
 */
import { KIND_ERROR, KIND_TRANSFER, type TaskLog } from '../state/task-log';

export interface Ctx2D {
  fillStyle: string | CanvasGradient | CanvasPattern;
  strokeStyle: string | CanvasGradient | CanvasPattern;
  font: string;
  lineWidth: number;
  fillRect(x: number, y: number, w: number, h: number): void;
  strokeRect(x: number, y: number, w: number, h: number): void;
  fillText(text: string, x: number, y: number): void;
  clearRect(x: number, y: number, w: number, h: number): void;
}

export interface StreamView {
  /** ms after the log's t0 at the left edge of the plot. */
  startMs: number;
  msPerPx: number;
}

export const LABEL_W = 210;
export const LANE_H = 26;
export const AXIS_H = 18;
export const TRANSFER_COLOR = '#e4572e';
export const ERROR_COLOR = '#000000';

/** A stable colour per op name (hue from a string hash); transfers and errors have their own. */
export function opColor(op: string): string {
  if (op === 'transfer') return TRANSFER_COLOR;
  if (op === 'error') return ERROR_COLOR;
  let h = 2166136261;
  for (let i = 0; i < op.length; i++) h = Math.imul(h ^ op.charCodeAt(i), 16777619);
  const hue = (h >>> 0) % 360;
  // Skip the reds that transfers use.
  const safe = hue < 20 || hue > 340 ? (hue + 60) % 360 : hue;
  return `hsl(${safe}, 62%, 52%)`;
}

export interface DrawStats {
  /** Items represented on screen per lane id (drawn as their own rect or inside a column). */
  tasksByLane: Record<string, number>;
  rects: number;
  aggregated: boolean;
}

export function fitView(log: TaskLog, plotWidth: number): StreamView {
  const span = Number.isFinite(log.t0) ? Math.max(1, log.tMax - log.t0) : 1000;
  return { startMs: 0, msPerPx: (span * 1.02) / Math.max(1, plotWidth) };
}

export function drawStream(ctx: Ctx2D, log: TaskLog, view: StreamView, width: number, highlightNode: string | null): DrawStats {
  const height = AXIS_H + Math.max(1, log.lanes.length) * LANE_H;
  ctx.clearRect(0, 0, width, height);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  const plotW = Math.max(1, width - LABEL_W);
  const stats: DrawStats = { tasksByLane: {}, rects: 0, aggregated: false };
  ctx.font = '11px system-ui, sans-serif';
  // Time axis.
  ctx.fillStyle = '#555';
  const spanMs = plotW * view.msPerPx;
  const step = niceStep(spanMs / 8);
  for (let t = Math.ceil(view.startMs / step) * step; t < view.startMs + spanMs; t += step) {
    const x = LABEL_W + (t - view.startMs) / view.msPerPx;
    ctx.fillRect(x, AXIS_H - 4, 1, 4);
    ctx.fillText(formatMs(t), x + 2, AXIS_H - 6);
  }
  const columns = new Map<number, Map<number, number>>(); // lane*plotW+px -> op -> covered px
  for (let l = 0; l < log.lanes.length; l++) {
    const y = AXIS_H + l * LANE_H;
    ctx.fillStyle = l % 2 ? '#fafafa' : '#f3f4f6';
    ctx.fillRect(0, y, LABEL_W - 2, LANE_H - 1);
    const lane = log.lanes[l];
    ctx.fillStyle = lane.virtual ? '#7a4b00' : '#222';
    ctx.fillText(lane.virtual ? `${lane.label} (virtual)` : lane.label, 6, y + 16);
    let count = 0;
    for (const i of log.laneItems[l]) {
      const s = (log.start[i] - log.t0 - view.startMs) / view.msPerPx;
      const e = (log.end[i] - log.t0 - view.startMs) / view.msPerPx;
      if (e < 0 || s > plotW) continue;
      count++;
      const x0 = Math.max(0, s);
      const x1 = Math.min(plotW, e);
      const k = log.kind[i];
      const dimmed = highlightNode !== null && log.nodes[i] !== highlightNode;
      if (x1 - x0 >= 1 || k === KIND_ERROR) {
        ctx.fillStyle = dimmed ? '#d8d8d8' : k === KIND_ERROR ? ERROR_COLOR : k === KIND_TRANSFER ? TRANSFER_COLOR : opColor(log.ops[log.op[i]]);
        const inset = k === KIND_TRANSFER ? 8 : 3;
        ctx.fillRect(LABEL_W + x0, y + inset, Math.max(k === KIND_ERROR ? 2 : 1, x1 - x0), LANE_H - 2 * inset);
        stats.rects++;
      } else {
        stats.aggregated = true;
        const col = l * plotW + Math.floor(x0);
        let m = columns.get(col);
        if (!m) columns.set(col, (m = new Map()));
        const o = dimmed ? -1 : k === KIND_TRANSFER ? -2 : log.op[i];
        m.set(o, (m.get(o) ?? 0) + Math.max(0.05, x1 - x0));
      }
    }
    stats.tasksByLane[lane.id] = count;
  }
  for (const [col, m] of columns) {
    const l = Math.floor(col / plotW);
    const px = col - l * plotW;
    let best = 0;
    let bestCover = -1;
    for (const [o, c] of m) if (c > bestCover) [best, bestCover] = [o, c];
    ctx.fillStyle = best === -1 ? '#d8d8d8' : best === -2 ? TRANSFER_COLOR : opColor(log.ops[best]);
    ctx.fillRect(LABEL_W + px, AXIS_H + l * LANE_H + 3, 1, LANE_H - 6);
    stats.rects++;
  }
  return stats;
}

/** The item under a point, or -1. */
export function hitTest(log: TaskLog, view: StreamView, x: number, y: number): number {
  const l = Math.floor((y - AXIS_H) / LANE_H);
  if (l < 0 || l >= log.lanes.length || x < LABEL_W) return -1;
  const t = log.t0 + view.startMs + (x - LABEL_W) * view.msPerPx;
  const slack = 2 * view.msPerPx; // a thin task is still hoverable
  const items = log.laneItems[l];
  for (let j = items.length - 1; j >= 0; j--) {
    const i = items[j];
    if (log.start[i] - slack <= t && t <= log.end[i] + slack) return i;
  }
  return -1;
}

export function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-6)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

export function formatMs(ms: number): string {
  if (Math.abs(ms) >= 1000) return `${(ms / 1000).toFixed(ms >= 10000 ? 0 : 1)} s`;
  return `${Math.round(ms * 10) / 10} ms`;
}

export function formatBytes(b: number): string {
  if (b >= 2 ** 30) return `${(b / 2 ** 30).toFixed(2)} GiB`;
  if (b >= 2 ** 20) return `${(b / 2 ** 20).toFixed(1)} MiB`;
  if (b >= 1024) return `${(b / 1024).toFixed(1)} KiB`;
  return `${b} B`;
}
