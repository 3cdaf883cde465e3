/**
 * Draws the run's progress bars on a canvas, one row per graph node as on Dask's progress page:
 * the node's id (and "fused into …" for a node whose work runs in another's tasks) with its
 * done/total, then a track of done, running, erred and cancelled segments over the waiting colour.
 * Pure and framework-free (the panel redraws it from the batched events, off React's render path,
 * as the task stream is): takes the rows, a minimal 2D-context interface and the theme's colours,
 * and returns where each segment was drawn, which the page exposes for tests and hover.
 *
 * Segment widths are cumulative roundings of done, done+running, … over the track, so they never
 * overlap, add up to the track, and a non-zero count is at least one pixel wide (a single stopped
 * task among 14 400 is still seen).
 */
import type { WorkflowEdge } from '../../common/workflow';
import { progressSegments } from '../state/node-tasks';
import { absorbers, fusedOrigins } from './fusion';
import { fitLabel, type Ctx2D } from './stream-draw';

export interface ProgressCtx extends Ctx2D {
  textAlign: CanvasTextAlign;
}

export type Segments = ReturnType<typeof progressSegments>;

export interface ProgressRow {
  node: string;
  /** Muted text after the id ("fused into a, b"), or ''. */
  note: string;
  seg: Segments;
}

export interface ProgressColors {
  text: string;
  muted: string;
  done: string;
  running: string;
  erred: string;
  cancelled: string;
  waiting: string;
}

export const LIGHT_PROGRESS: ProgressColors = { text: '#1f2328', muted: '#57606a', done: '#2e9e5b', running: '#f2a93b', erred: '#d64545', cancelled: '#8a93a3', waiting: '#dde1e6' };

/** Row height: an 11 px label line, the 10 px track and the gap below it. */
export const ROW_H = 32;
const TRACK_Y = 16;
export const TRACK_H = 10;
/** Pixels kept for the done/total count at the label line's right. */
const COUNT_W = 90;

/** The segments drawn, in order along the track. */
export const SEGMENT_NAMES = ['done', 'running', 'erred', 'cancelled'] as const;
export type SegmentName = (typeof SEGMENT_NAMES)[number];

export interface BarGeometry {
  node: string;
  seg: Segments;
  /** The track's top and left, in CSS pixels of the canvas. */
  y: number;
  x: number;
  w: number;
  /** Each drawn segment's [x, width]; absent when its count is 0. */
  at: Partial<Record<SegmentName, [number, number]>>;
}

/** The pixel spans of each non-empty segment along a track `w` wide (see the module comment). */
export function segmentSpans(seg: Segments, w: number): Partial<Record<SegmentName, [number, number]>> {
  const out: Partial<Record<SegmentName, [number, number]>> = {};
  if (seg.total <= 0) return out;
  const drawn = SEGMENT_NAMES.filter((name) => seg[name] > 0);
  let cum = 0;
  let x = 0;
  drawn.forEach((name, i) => {
    cum += seg[name];
    // At least a pixel each, leaving a pixel for each non-empty segment after it.
    const end = Math.min(w - (drawn.length - 1 - i), Math.max(x + 1, Math.round((cum / seg.total) * w)));
    if (end > x) out[name] = [x, end - x];
    x = Math.max(x, end);
  });
  return out;
}

/** Per node: its running and erred task counts (NodeTasks), and whether the run was cancelled. */
export interface TaskCounts {
  runningOf(node: string): number;
  erredOf(node: string): number;
  readonly cancelled: boolean;
}

/**
 * One row per graph node, in the graph's order, from the run's progress ([done, total] per task
 * node) and its task counts; a node fused into another's tasks shows the bar of the nodes that
 * carry its work.
 */
export function progressRows(nodes: readonly { id: string }[], edges: readonly WorkflowEdge[], progress: Record<string, [number, number]>, counts: TaskCounts): ProgressRow[] {
  const absorbed = absorbers(fusedOrigins(nodes, edges, (id) => (progress[id]?.[1] ?? 0) > 0));
  return nodes.map((n) => {
    const carriers = absorbed.get(n.id);
    const own = (progress[n.id]?.[1] ?? 0) > 0;
    const src = own ? [n.id] : (carriers ?? []);
    let done = 0;
    let total = 0;
    let running = 0;
    let erred = 0;
    for (const id of src) {
      done += progress[id]?.[0] ?? 0;
      total += progress[id]?.[1] ?? 0;
      running += counts.runningOf(id);
      erred += counts.erredOf(id);
    }
    return { node: n.id, note: !own && carriers ? `fused into ${carriers.join(', ')}` : '', seg: progressSegments(done, total, running, erred, counts.cancelled) };
  });
}

/** The height the canvas needs for `rows` rows. */
export const progressHeight = (rows: number) => Math.max(1, rows) * ROW_H;

export function drawProgress(ctx: ProgressCtx, rows: readonly ProgressRow[], width: number, colors: ProgressColors = LIGHT_PROGRESS): BarGeometry[] {
  ctx.clearRect(0, 0, width, progressHeight(rows.length));
  ctx.font = '11px system-ui, sans-serif';
  const bars: BarGeometry[] = [];
  rows.forEach((r, i) => {
    const y = i * ROW_H;
    const count = `${r.seg.done}/${r.seg.total}`;
    ctx.textAlign = 'right';
    ctx.fillStyle = colors.text;
    ctx.fillText(count, width, y + 11);
    ctx.textAlign = 'left';
    const labelW = Math.max(24, width - COUNT_W);
    const id = fitLabel(r.node, labelW);
    ctx.fillText(id, 0, y + 11);
    if (r.note && id === r.node) {
      const used = r.node.length * 6.2;
      ctx.fillStyle = colors.muted;
      if (labelW - used > 40) ctx.fillText(fitLabel(` · ${r.note}`, labelW - used), used, y + 11);
    }
    const ty = y + TRACK_Y;
    ctx.fillStyle = colors.waiting;
    ctx.fillRect(0, ty, width, TRACK_H);
    const at = segmentSpans(r.seg, width);
    for (const name of SEGMENT_NAMES) {
      const span = at[name];
      if (!span) continue;
      ctx.fillStyle = colors[name];
      ctx.fillRect(span[0], ty, span[1], TRACK_H);
    }
    bars.push({ node: r.node, seg: r.seg, y: ty, x: 0, w: width, at });
  });
  return bars;
}

/** The row under a point, or -1. */
export function rowAt(y: number, rows: number): number {
  const i = Math.floor(y / ROW_H);
  return i >= 0 && i < rows ? i : -1;
}

/** A bar's counts in words (its hover text). */
export function describeBar(b: { node: string; seg: Segments }): string {
  const s = b.seg;
  return `${b.node}: done ${s.done} · running ${s.running} · erred ${s.erred} · cancelled ${s.cancelled} · waiting ${s.waiting}`;
}
