/**
 * The progress bars drawn on a canvas (logic/progress-draw.ts): segment spans computed by hand,
 * what a recording 2D context was asked to fill, and the rows built from progress, task counts and
 * fusion (a fused-away node shows its carrier's bar).
 */
import { describe, expect, it } from 'vitest';
import { drawProgress, LIGHT_PROGRESS, progressRows, ROW_H, segmentSpans, TRACK_H, type ProgressCtx } from '../../../renderer/logic/progress-draw';
import { progressSegments } from '../../../renderer/state/node-tasks';

function recorder() {
  const fills: Array<{ x: number; y: number; w: number; h: number; fill: string }> = [];
  const texts: Array<{ text: string; x: number; y: number; align: string }> = [];
  const ctx: ProgressCtx = {
    fillStyle: '',
    strokeStyle: '',
    font: '',
    lineWidth: 1,
    textAlign: 'left',
    fillRect(x, y, w, h) {
      fills.push({ x, y, w, h, fill: String(this.fillStyle) });
    },
    strokeRect() {},
    fillText(text, x, y) {
      texts.push({ text, x, y, align: this.textAlign });
    },
    clearRect() {},
  };
  return { ctx, fills, texts };
}

const counts = (running: Record<string, number>, erred: Record<string, number>, cancelled = false) => ({
  runningOf: (n: string) => running[n] ?? 0,
  erredOf: (n: string) => erred[n] ?? 0,
  cancelled,
});

describe('progress bars on a canvas', () => {
  it('splits the track in proportion: 3 done, 1 running, 6 cancelled of 10 over 200 px', () => {
    expect(segmentSpans(progressSegments(3, 10, 1, 0, true), 200)).toEqual({ done: [0, 60], running: [60, 20], cancelled: [80, 120] });
    // Nothing drawn for an empty bar; waiting is the track itself.
    expect(segmentSpans(progressSegments(0, 10, 0, 0), 200)).toEqual({});
  });

  it('keeps one stopped task of 14 400 visible: a pixel of its own at the end', () => {
    expect(segmentSpans(progressSegments(14_399, 14_400, 0, 0, true), 200)).toEqual({ done: [0, 199], cancelled: [199, 1] });
    expect(segmentSpans(progressSegments(1, 14_400, 0, 1), 200)).toEqual({ done: [0, 1], erred: [1, 1] });
  });

  it('fills the waiting track, then each segment in its colour, one row per node', () => {
    const r = recorder();
    const rows = [
      { node: 'a', note: '', seg: progressSegments(5, 10, 0, 5) },
      { node: 'b', note: '', seg: progressSegments(2, 4, 0, 0, true) },
    ];
    const bars = drawProgress(r.ctx, rows, 100);
    expect(r.fills).toEqual([
      { x: 0, y: 16, w: 100, h: TRACK_H, fill: LIGHT_PROGRESS.waiting },
      { x: 0, y: 16, w: 50, h: TRACK_H, fill: LIGHT_PROGRESS.done },
      { x: 50, y: 16, w: 50, h: TRACK_H, fill: LIGHT_PROGRESS.erred },
      { x: 0, y: ROW_H + 16, w: 100, h: TRACK_H, fill: LIGHT_PROGRESS.waiting },
      { x: 0, y: ROW_H + 16, w: 50, h: TRACK_H, fill: LIGHT_PROGRESS.done },
      { x: 50, y: ROW_H + 16, w: 50, h: TRACK_H, fill: LIGHT_PROGRESS.cancelled },
    ]);
    expect(r.texts.filter((t) => t.align === 'right').map((t) => t.text)).toEqual(['5/10', '2/4']);
    expect(r.texts.filter((t) => t.align === 'left').map((t) => t.text)).toEqual(['a', 'b']);
    expect(bars.map((b) => [b.node, b.y, b.at])).toEqual([
      ['a', 16, { done: [0, 50], erred: [50, 50] }],
      ['b', ROW_H + 16, { done: [0, 50], cancelled: [50, 50] }],
    ]);
  });

  it('gives a fused-away node the bar of the node that carries its work, and counts running / erred', () => {
    const nodes = [{ id: 'gen' }, { id: 'add' }, { id: 'sum' }];
    const edges = [
      { source: 'gen', sourcePort: 'out', target: 'add', targetPort: 'x' },
      { source: 'add', sourcePort: 'out', target: 'sum', targetPort: 'x' },
    ];
    // 'add' has no tasks of its own: its work runs in 'sum''s.
    const rows = progressRows(nodes, edges, { gen: [4, 4], sum: [1, 4] }, counts({ sum: 1 }, { sum: 1 }));
    expect(rows.map((r) => [r.node, r.note, r.seg])).toEqual([
      ['gen', '', { done: 4, running: 0, erred: 0, cancelled: 0, waiting: 0, total: 4 }],
      ['add', 'fused into sum', { done: 1, running: 1, erred: 1, cancelled: 0, waiting: 1, total: 4 }],
      ['sum', '', { done: 1, running: 1, erred: 1, cancelled: 0, waiting: 1, total: 4 }],
    ]);
  });
});
