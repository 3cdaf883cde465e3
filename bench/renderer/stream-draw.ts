/**
 * How long one redraw of the task stream takes with 100 000 tasks on 4 lanes at 1400 × 300 px
 * (renderer/logic/stream-draw.ts against a no-op 2D context: the loop and the per-pixel-column
 * aggregation, not the browser's fills). Writes bench/results/stream-draw-100k.json.
 * Run: npx tsx bench/renderer/stream-draw.ts
 */
import { writeFileSync } from 'node:fs';
import type { EngineEvent } from '../../common/events';
import { drawStream, LIGHT_STREAM, type Ctx2D } from '../../renderer/logic/stream-draw';
import { TaskLog } from '../../renderer/state/task-log';

const N = 100_000;
const log = new TaskLog();
const events: EngineEvent[] = [];
for (let i = 0; i < N; i++) {
  const t = 0.4 * i;
  events.push({ type: 'task', seq: i, t, runId: 'r', key: `k${i}`, node: 'n', op: i % 50 === 0 ? 'combine' : 'chunk', worker: `w${i % 4}`, start: t, end: t + 1.2, bytes: 8, backend: 'js', cause: 0 });
}
log.addEvents(events);
const ctx: Ctx2D = { fillStyle: '', strokeStyle: '', font: '', lineWidth: 1, fillRect() {}, strokeRect() {}, fillText() {}, clearRect() {} };
const view = { startMs: 0, msPerPx: (log.tMax - log.t0) / 1200 };
for (let i = 0; i < 5; i++) drawStream(ctx, log, view, 1400, 300, null, LIGHT_STREAM);
const times: number[] = [];
for (let i = 0; i < 31; i++) {
  const a = performance.now();
  drawStream(ctx, log, view, 1400, 300, new Set(['n']), LIGHT_STREAM);
  times.push(performance.now() - a);
}
times.sort((a, b) => a - b);
const out = { bench: 'stream-draw-100k', tasks: log.n, lanes: 4, width: 1400, medianMs: +times[15].toFixed(2), p90Ms: +times[27].toFixed(2), date: new Date().toISOString(), note: 'shared 2-core machine, no-op context' };
writeFileSync('bench/results/stream-draw-100k.json', JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out));
