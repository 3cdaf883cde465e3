/**
 * The task stream's live drawing: running tasks grow from their start to now, tuning trials'
 * progress labels, stable op colours (hash of the name) and lanes sorted by worker kind and index.
 */
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../common/events';
import { compareLanes } from '../../../renderer/logic/lane-order';
import { hashName, OP_PALETTE, OpColors, preferredSlot } from '../../../renderer/logic/op-colors';
import { AXIS_H, LABEL_W, drawStream, fitView, hitTest, type Ctx2D } from '../../../renderer/logic/stream-draw';
import { TaskLog, progressLabel } from '../../../renderer/state/task-log';

interface Rect { x: number; y: number; w: number; h: number; fill: string }

/** A 2D context that records what was filled, stroked and written. */
function recorder() {
  const fills: Rect[] = [];
  const strokes: Rect[] = [];
  const texts: Array<{ text: string; x: number; y: number }> = [];
  const ctx: Ctx2D = {
    fillStyle: '',
    strokeStyle: '',
    font: '',
    lineWidth: 1,
    fillRect(x, y, w, h) {
      fills.push({ x, y, w, h, fill: String(this.fillStyle) });
    },
    strokeRect(x, y, w, h) {
      strokes.push({ x, y, w, h, fill: String(this.strokeStyle) });
    },
    fillText(text, x, y) {
      texts.push({ text, x, y });
    },
    clearRect() {},
  };
  return { ctx, fills, strokes, texts };
}

const base = { runId: 'r', cause: 0 };
const running = (seq: number, t: number, key: string, node: string, worker: string): EngineEvent => ({ type: 'task-state', seq, t, ...base, key, node, from: 'ready', to: 'running', worker });
const task = (seq: number, key: string, node: string, op: string, worker: string, start: number, end: number): EngineEvent => ({ type: 'task', seq, t: end, ...base, key, node, op, worker, start, end, bytes: 8, backend: 'js' });

describe('running tasks in the stream', () => {
  it('draws a running task from its start to now, wider as now moves on, and replaces it by the finished task', () => {
    const log = new TaskLog();
    log.addEvents([running(1, 1000, 'a-0', 'a', 'cpu0')]);
    expect(log.running.size).toBe(1);
    const view = { startMs: 0, msPerPx: 1 }; // 1 ms per pixel: widths are durations
    const at = (now: number | null) => {
      const r = recorder();
      const stats = drawStream(r.ctx, log, view, LABEL_W + 1000, AXIS_H + 60, null, undefined, now);
      return { r, stats };
    };
    const first = at(1100);
    expect(first.stats.runningByLane).toEqual({ cpu0: 1 });
    // Outlined rectangle from x = LABEL_W (start is the axis origin) 100 px wide.
    expect(first.r.strokes).toHaveLength(1);
    expect(first.r.strokes[0].x).toBeCloseTo(LABEL_W + 0.5);
    expect(first.r.strokes[0].w).toBeCloseTo(99);
    const later = at(1400);
    expect(later.r.strokes[0].w).toBeCloseTo(399);
    // Without now (the run is over), nothing running is drawn.
    expect(at(null).stats.runningByLane).toEqual({});
    log.addEvents([task(2, 'a-0', 'a', 'load', 'cpu0', 1000, 1450)]);
    expect(log.running.size).toBe(0);
    const done = at(1500);
    expect(done.r.strokes).toHaveLength(0);
    expect(done.stats.byOp).toEqual({ load: 1 });
  });

  it('colours a running task as its node op once known and makes room for it when fitting', () => {
    const log = new TaskLog();
    log.addEvents([task(1, 'a-0', 'a', 'load', 'cpu0', 0, 100), running(2, 100, 'a-1', 'a', 'cpu0')]);
    expect(fitView(log, 1000, null).msPerPx).toBeCloseTo((100 * 1.02) / 1000);
    expect(fitView(log, 1000, 1100).msPerPx).toBeCloseTo((1100 * 1.02) / 1000);
    // Compare's two streams on one scale: a longer shared span widens, a shorter one does not narrow.
    expect(fitView(log, 1000, null, 400).msPerPx).toBeCloseTo((400 * 1.02) / 1000);
    expect(fitView(log, 1000, null, 50).msPerPx).toBeCloseTo((100 * 1.02) / 1000);
    const r = recorder();
    drawStream(r.ctx, log, { startMs: 0, msPerPx: 1 }, LABEL_W + 2000, AXIS_H + 60, null, undefined, 600);
    const grown = r.fills.find((f) => f.x === LABEL_W + 100 && Math.abs(f.w - 500) < 1e-9);
    expect(grown?.fill).toBe(log.colors.of('load'));
  });

  it('drops a running task that erred or went back to waiting', () => {
    const log = new TaskLog();
    log.addEvents([running(1, 0, 'a-0', 'a', 'cpu0'), running(2, 0, 'b-0', 'b', 'cpu0')]);
    log.addEvents([{ type: 'task-state', seq: 3, t: 5, ...base, key: 'a-0', node: 'a', from: 'running', to: 'waiting', worker: 'cpu0' }]);
    log.addEvents([{ type: 'task-error', seq: 4, t: 6, ...base, key: 'b-0', node: 'b', worker: 'cpu0', message: 'boom' }]);
    expect(log.running.size).toBe(0);
  });

  it("labels a tuning trial's running task with its epoch of the rung's target", () => {
    const log = new TaskLog();
    log.addEvents([running(1, 0, 's-3', 's', 'cpu0')]);
    log.addEvents([{ type: 'task-progress', seq: 2, t: 10, runId: 'r', key: 's-3', node: 's', worker: 'cpu0', payload: { trial: 't3', epoch: 4, epochs: 10, loss: 0.5 } }]);
    expect(log.running.get('s-3')?.progress).toBe('trial t3 · epoch 4 of 10');
    const r = recorder();
    const stats = drawStream(r.ctx, log, { startMs: 0, msPerPx: 0.1 }, LABEL_W + 1000, AXIS_H + 60, null, undefined, 50);
    expect(r.texts.map((t) => t.text)).toContain('trial t3 · epoch 4 of 10');
    expect(stats.progressLabels).toEqual(['trial t3 · epoch 4 of 10']);
    expect(progressLabel({ epoch: 2 })).toBe('epoch 2');
    expect(progressLabel({ loss: 1 })).toBe('');
  });
});

describe('stable op colours', () => {
  it('hashes names with 32-bit FNV-1a (published test vectors)', () => {
    expect(hashName('')).toBe(0x811c9dc5);
    expect(hashName('a')).toBe(0xe40c292c);
    expect(hashName('foobar')).toBe(0xbf9cf968);
  });

  it('gives an op the same colour whatever order and company it comes in', () => {
    // Ops whose preferred slots differ keep their slot in every run.
    const ops = ['load', 'matmul', 'sum', 'add', 'transpose', 'mean'];
    const distinct: string[] = [];
    for (const op of ops) if (!distinct.some((d) => preferredSlot(d) === preferredSlot(op))) distinct.push(op);
    expect(distinct.length).toBeGreaterThanOrEqual(3);
    const a = new OpColors();
    const b = new OpColors();
    const inA = distinct.map((op) => a.of(op));
    const inB = [...distinct].reverse().map((op) => b.of(op)).reverse();
    expect(inB).toEqual(inA);
    for (const op of distinct) expect(a.of(op)).toBe(OP_PALETTE[preferredSlot(op)]);
  });

  it('gives two ops whose hashes meet different colours, the first keeping its own', () => {
    const first = 'op0';
    let second = '';
    for (let i = 1; !second; i++) if (preferredSlot(`op${i}`) === preferredSlot(first)) second = `op${i}`;
    const c = new OpColors();
    expect(c.of(first)).toBe(OP_PALETTE[preferredSlot(first)]);
    expect(c.of(second)).not.toBe(c.of(first));
  });
});

describe('lane order', () => {
  it('sorts lanes by worker kind then index, not by first report', () => {
    const ids = ['vgpu1', 'cpu0', 'vgpu10', 'vgpu0', 'gpu1', 'vgpu2', 'gpu0', 'dask-tcp://127.0.0.1:4000'];
    expect([...ids].sort(compareLanes)).toEqual(['gpu0', 'gpu1', 'vgpu0', 'vgpu1', 'vgpu2', 'vgpu10', 'cpu0', 'dask-tcp://127.0.0.1:4000']);
  });

  it('draws the lanes in that order and hit-tests the lane drawn under the pointer', () => {
    const log = new TaskLog();
    const w = (worker: string, label: string): EngineEvent => ({ type: 'worker', seq: 0, t: 0, worker, kind: worker.startsWith('cpu') ? 'cpu' : 'virtual-gpu', label, state: 'up' });
    log.addEvents([w('vgpu1', 'virtual GPU 1'), w('vgpu2', 'virtual GPU 2'), w('vgpu0', 'virtual GPU 0'), w('cpu0', 'CPU')]);
    const r = recorder();
    const stats = drawStream(r.ctx, log, { startMs: 0, msPerPx: 1 }, LABEL_W + 500, AXIS_H + 4 * 30, null);
    const labels = r.texts.filter((t) => t.x === 6).sort((a, b) => a.y - b.y).map((t) => t.text);
    expect(labels).toEqual(['virtual GPU 0', 'virtual GPU 1', 'virtual GPU 2', 'CPU']);
    expect(stats.laneH).toBe(30);
    // vgpu0 reported third but is drawn first: a point in the first row finds its task.
    log.addEvents([task(1, 'x-0', 'x', 'load', 'vgpu0', 0, 100), task(2, 'y-0', 'y', 'load', 'cpu0', 0, 100)]);
    expect(log.keys[hitTest(log, { startMs: 0, msPerPx: 1 }, LABEL_W + 50, AXIS_H + 15, 30)]).toBe('x-0');
    expect(log.keys[hitTest(log, { startMs: 0, msPerPx: 1 }, LABEL_W + 50, AXIS_H + 3 * 30 + 15, 30)]).toBe('y-0');
  });
});

describe('sub-pixel tasks in the stream', () => {
  it('fills a run of adjacent one-pixel columns of one op as one rectangle covering the same pixels', () => {
    const log = new TaskLog();
    // 0.25 ms tasks back to back at 1 ms per pixel: columns 0..39 hold 'chunk' (4 tasks each),
    // column 40..59 'combine' (the longest item wins; only combine is there), a gap, then 80..89 'chunk'.
    const evs: EngineEvent[] = [];
    let seq = 0;
    const add = (op: string, from: number, to: number) => {
      for (let t = from; t < to; t += 0.25) evs.push(task(++seq, `k${seq}`, 'n', op, 'cpu0', t, t + 0.2));
    };
    add('chunk', 0, 40);
    add('combine', 40, 60);
    add('chunk', 80, 90);
    log.addEvents(evs);
    const r = recorder();
    const stats = drawStream(r.ctx, log, { startMs: 0, msPerPx: 1 }, LABEL_W + 200, AXIS_H + 40, null);
    expect(stats.aggregated).toBe(true);
    const laneTop = AXIS_H;
    // The task fills: those inside the lane's plot (right of the labels, below the lane's top, not lane-tall).
    const laneH = stats.laneH;
    const taskFills = r.fills.filter((f) => f.x >= LABEL_W && f.y > laneTop && f.h < laneH - 1 && f.w < 200);
    const chunk = log.colors.of('chunk');
    const combine = log.colors.of('combine');
    expect(taskFills.map((f) => [f.x - LABEL_W, f.w, f.fill])).toEqual([
      [0, 40, chunk],
      [40, 20, combine],
      [80, 10, chunk],
    ]);
    expect(stats.rects).toBe(3);
    expect(stats.tasksByLane).toEqual({ cpu0: 4 * 40 + 4 * 20 + 4 * 10 });
  });
});
