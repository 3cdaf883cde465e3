/**
 * Draws the task stream: one lane per worker, a rectangle per task coloured by op, transfers in
 * their own colour, errors in the error colour. Lanes share the panel's height (the stream fills
 * its panel). Tasks narrower than a pixel are aggregated into one-pixel columns per lane (the op
 * of the longest item in the column wins), in typed arrays, and runs of columns of one colour are filled as one rectangle, so a run with 100k tasks draws in a
 * few milliseconds. Tasks still running are drawn from their start to `now`, growing with each
 * frame, in their node's op colour (a neutral colour until the node has a finished task) with an
 * outline, labelled with their latest progress report when it fits. Lanes are in display order
 * (worker kind, then index). Returns what it drew, per lane and per op, which the page exposes for tests
 * and the legend reads. Pure: takes a minimal 2D-context interface and the theme's colours.
 */
import { KIND_ERROR, KIND_TRANSFER, type TaskLog } from '../state/task-log';
import { ERROR_COLOR, TRANSFER_COLOR } from './op-colors';

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

/** The theme's colours for the canvas (read from the CSS tokens by the component). */
export interface StreamColors {
  bg: string;
  laneA: string;
  laneB: string;
  text: string;
  muted: string;
  virtual: string;
  dimmed: string;
  grid: string;
}

export const LIGHT_STREAM: StreamColors = { bg: '#ffffff', laneA: '#f3f4f6', laneB: '#fafafa', text: '#1f2328', muted: '#57606a', virtual: '#8a5a00', dimmed: '#d8d8d8', grid: '#e5e7eb' };

export const LABEL_W = 180;
export const AXIS_H = 18;
export const MIN_LANE_H = 14;
export const MAX_LANE_H = 96;

/** Lane height that fills `height` pixels with `lanes` lanes, within readable bounds. */
export function laneHeight(height: number, lanes: number): number {
  const h = Math.floor((height - AXIS_H) / Math.max(1, lanes));
  return Math.max(MIN_LANE_H, Math.min(MAX_LANE_H, h));
}

/** The label cut to fit `px` pixels at ~6.2 px a character (the canvas font), with an ellipsis. */
export function fitLabel(text: string, px: number): string {
  const max = Math.max(3, Math.floor(px / 6.2));
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export interface DrawStats {
  /** Items represented on screen per lane id (drawn as their own rect or inside a column). */
  tasksByLane: Record<string, number>;
  /** Items on screen per op name ('transfer' and 'error' included). */
  byOp: Record<string, number>;
  rects: number;
  /** Running tasks drawn (growing rectangles), per lane id. */
  runningByLane: Record<string, number>;
  /** The progress reports written on running tasks ("trial 3 · epoch 2 of 4"), whole, in drawing order. */
  progressLabels: string[];
  aggregated: boolean;
  laneH: number;
}

/** The whole run in view; `now` (while it runs) makes room for the running tasks up to now. */
/**
 * The view that shows the whole run; `sharedSpanMs` widens it to a span shared with another
 * stream (Compare draws two runs on one time scale, so the longer run reads longer).
 */
export function fitView(log: TaskLog, plotWidth: number, now: number | null = null, sharedSpanMs = 0): StreamView {
  const own = Number.isFinite(log.t0) ? Math.max(1, log.endAt(now) - log.t0) : 1000;
  const span = Math.max(own, sharedSpanMs);
  return { startMs: 0, msPerPx: (span * 1.02) / Math.max(1, plotWidth) };
}

export function drawStream(
  ctx: Ctx2D,
  log: TaskLog,
  view: StreamView,
  width: number,
  height: number,
  highlight: ReadonlySet<string> | null,
  colors: StreamColors = LIGHT_STREAM,
  now: number | null = null,
): DrawStats {
  const laneH = laneHeight(height, log.lanes.length);
  ctx.clearRect(0, 0, width, height);
  ctx.fillStyle = colors.bg;
  ctx.fillRect(0, 0, width, height);
  const plotW = Math.max(1, Math.floor(width - LABEL_W));
  const stats: DrawStats = { tasksByLane: {}, byOp: {}, rects: 0, runningByLane: {}, progressLabels: [], aggregated: false, laneH };
  ctx.font = '11px system-ui, sans-serif';
  // Time axis and grid.
  const spanMs = plotW * view.msPerPx;
  const step = niceStep(spanMs / 8);
  const lanesBottom = AXIS_H + log.lanes.length * laneH;
  for (let t = Math.ceil(view.startMs / step) * step; t < view.startMs + spanMs; t += step) {
    const x = LABEL_W + (t - view.startMs) / view.msPerPx;
    ctx.fillStyle = colors.grid;
    ctx.fillRect(x, AXIS_H, 1, lanesBottom - AXIS_H);
    ctx.fillStyle = colors.muted;
    ctx.fillRect(x, AXIS_H - 4, 1, 4);
    ctx.fillText(formatMs(t), x + 2, AXIS_H - 6);
  }
  const colorOf = log.ops.map((op) => log.colors.of(op));
  const opCount = new Float64Array(log.ops.length);
  let transfers = 0;
  let errors = 0;
  // Per lane pixel column: the longest sub-pixel item's op (-1 dimmed, -2 transfer), and its cover.
  const colOp = new Int32Array(plotW);
  const colCover = new Float32Array(plotW);
  const rows = log.rows();
  for (let row = 0; row < rows.length; row++) {
    const l = rows[row];
    const y = AXIS_H + row * laneH;
    ctx.fillStyle = row % 2 ? colors.laneB : colors.laneA;
    ctx.fillRect(0, y, width, laneH - 1);
    const lane = log.lanes[l];
    ctx.fillStyle = lane.virtual ? colors.virtual : colors.text;
    const label = lane.virtual && !/virtual/i.test(lane.label) ? `${lane.label} (virtual)` : lane.label;
    ctx.fillText(fitLabel(label, LABEL_W - 12), 6, y + Math.min(laneH - 3, laneH / 2 + 4));
    colCover.fill(0);
    let count = 0;
    // The fill is set only when its colour changes: each assignment parses a CSS colour.
    let lastFill = '';
    const fill = (c: string) => {
      if (c !== lastFill) ctx.fillStyle = lastFill = c;
    };
    const inset = Math.max(1, Math.round(laneH * 0.12));
    for (const i of log.laneItems[l]) {
      const s = (log.start[i] - log.t0 - view.startMs) / view.msPerPx;
      const e = (log.end[i] - log.t0 - view.startMs) / view.msPerPx;
      if (e < 0 || s > plotW) continue;
      count++;
      const k = log.kind[i];
      if (k === KIND_TRANSFER) transfers++;
      else if (k === KIND_ERROR) errors++;
      else opCount[log.op[i]]++;
      const x0 = Math.max(0, s);
      const x1 = Math.min(plotW, e);
      const dimmed = highlight !== null && !highlight.has(log.nodes[i]);
      if (x1 - x0 >= 1 || k === KIND_ERROR) {
        fill(dimmed ? colors.dimmed : k === KIND_ERROR ? ERROR_COLOR : k === KIND_TRANSFER ? TRANSFER_COLOR : colorOf[log.op[i]]);
        const ins = k === KIND_TRANSFER ? Math.round(laneH * 0.32) : inset;
        ctx.fillRect(LABEL_W + x0, y + ins, Math.max(k === KIND_ERROR ? 2 : 1, x1 - x0), laneH - 1 - 2 * ins);
        stats.rects++;
      } else {
        stats.aggregated = true;
        const px = Math.min(plotW - 1, Math.floor(x0));
        const cover = Math.max(0.05, x1 - x0);
        if (cover > colCover[px]) {
          colCover[px] = cover;
          colOp[px] = dimmed ? -1 : k === KIND_TRANSFER ? -2 : log.op[i];
        }
      }
    }
    // Adjacent columns of one colour are one rectangle: a busy lane is a few long runs, not a
    // fill per pixel (software canvas rasterises each fill on the main thread).
    for (let px = 0; px < plotW; px++) {
      if (colCover[px] === 0) continue;
      const o = colOp[px];
      let to = px + 1;
      while (to < plotW && colCover[to] !== 0 && colOp[to] === o) to++;
      fill(o === -1 ? colors.dimmed : o === -2 ? TRANSFER_COLOR : colorOf[o]);
      ctx.fillRect(LABEL_W + px, y + inset, to - px, laneH - 1 - 2 * inset);
      stats.rects++;
      px = to - 1;
    }
    stats.tasksByLane[lane.id] = count;
  }
  if (now !== null) drawRunning(ctx, log, view, plotW, laneH, rows, now, highlight, colors, colorOf, stats);
  log.ops.forEach((op, o) => {
    if (opCount[o] > 0) stats.byOp[op] = opCount[o];
  });
  if (transfers) stats.byOp.transfer = transfers;
  if (errors) stats.byOp.error = errors;
  return stats;
}

/** Running tasks as outlined rectangles from their start to `now` (see the module comment). */
function drawRunning(ctx: Ctx2D, log: TaskLog, view: StreamView, plotW: number, laneH: number, rows: number[], now: number, highlight: ReadonlySet<string> | null, colors: StreamColors, colorOf: string[], stats: DrawStats) {
  const rowOf = new Int32Array(log.lanes.length);
  rows.forEach((l, row) => (rowOf[l] = row));
  const inset = Math.max(1, Math.round(laneH * 0.12));
  for (const r of log.running.values()) {
    const s = (r.start - log.t0 - view.startMs) / view.msPerPx;
    const e = (Math.max(now, r.start) - log.t0 - view.startMs) / view.msPerPx;
    if (e < 0 || s > plotW) continue;
    const x0 = LABEL_W + Math.max(0, s);
    const w = Math.max(2, Math.min(plotW, e) - Math.max(0, s));
    const y = AXIS_H + rowOf[r.lane] * laneH + inset;
    const h = laneH - 1 - 2 * inset;
    const op = log.opOfNode.get(r.node);
    const dimmed = highlight !== null && !highlight.has(r.node);
    ctx.fillStyle = dimmed ? colors.dimmed : op === undefined ? colors.muted : colorOf[op];
    ctx.fillRect(x0, y, w, h);
    ctx.strokeStyle = colors.text;
    ctx.lineWidth = 1;
    ctx.strokeRect(x0 + 0.5, y + 0.5, Math.max(1, w - 1), Math.max(1, h - 1));
    if (r.progress && w > 40 && h >= 11) {
      ctx.fillStyle = colors.text;
      ctx.fillText(fitLabel(r.progress, w - 6), x0 + 3, y + Math.min(h - 2, h / 2 + 4));
      stats.progressLabels.push(r.progress);
    }
    stats.rects++;
    const id = log.lanes[r.lane].id;
    stats.runningByLane[id] = (stats.runningByLane[id] ?? 0) + 1;
  }
}

/** The item under a point, or -1. */
export function hitTest(log: TaskLog, view: StreamView, x: number, y: number, laneH: number): number {
  const row = Math.floor((y - AXIS_H) / laneH);
  if (row < 0 || row >= log.lanes.length || x < LABEL_W) return -1;
  const l = log.rows()[row];
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
