/**
 * Frame rate and long tasks of the renderer while a recorded run of ~12 600 tasks streams in:
 * a stand-in server on 127.0.0.1 serves out/renderer and the few API calls the page makes, and
 * when the page presses Run it replays bench/renderer/stream-11k.json.gz (record-stream.ts) over
 * the WebSocket at the recorded pace, batched as `serve` sends them (one JSON array per 32 ms tick;
 * GPUFLOW_REPLAY_UNBATCHED=1 sends one message per event, as serve did before, for an older build). In
 * Debian's Chromium (1600×1000) a requestAnimationFrame counter and a PerformanceObserver for
 * 'longtask' run from Run until the status reads finished. Writes bench/results/renderer-replay-11k.json.
 * Run after `npm run build`: npx tsx bench/renderer/replay.ts [speed=1]; GPUFLOW_REPLAY_OUT=file
 * writes elsewhere (a before/after pair).
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EngineEvent, QueueEntry } from '../../common/events';
import { TICK_MS } from '../../main/api/event-stream';
import { listExamples } from '../../main/api/examples';
import { attributeLongTasks, type TraceEvent } from './trace-attribution';
import { catalog } from '../../main/engine/ops/registry';

const speed = Number(process.argv[2] ?? 1);
const recorded = JSON.parse(zlib.gunzipSync(readFileSync('bench/renderer/stream-11k.json.gz')).toString()) as { tasks: number; durationMs: number; events: EngineEvent[] };
const dir = path.resolve(process.env.GPUFLOW_RENDERER_DIR ?? 'out/renderer');
if (!existsSync(path.join(dir, 'index.html'))) throw new Error('out/renderer is not built: run `npm run build` first');
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
const RUN = 'bench-run';
const entry: QueueEntry = { id: 'q1', label: 'seed benchmark', node: null, state: 'queued', runId: null, storeId: null, queuedAt: Date.now() };
const sockets = new Set<WebSocket>();
let seq = 0;
const unbatched = process.env.GPUFLOW_REPLAY_UNBATCHED === '1';
let outbox: unknown[] = [];
let tick: ReturnType<typeof setTimeout> | null = null;
const flush = () => {
  tick = null;
  const text = JSON.stringify(outbox);
  outbox = [];
  for (const ws of sockets) ws.send(text);
};
/** As main/api/event-stream.ts: messages wait for the tick (TICK_MS); a result goes out at once. */
const send = (m: unknown, now = false) => {
  if (unbatched) {
    const text = JSON.stringify(m);
    for (const ws of sockets) ws.send(text);
    return;
  }
  outbox.push(m);
  if (now) {
    if (tick) clearTimeout(tick);
    flush();
  } else tick ??= setTimeout(flush, TICK_MS);
};

/** Replays the recorded events at their pace (divided by `speed`), shifted to now, as our run. */
function replay() {
  const t0 = Date.now();
  send({ type: 'queue', seq: ++seq, t: t0, entries: [{ ...entry, state: 'running', runId: RUN }] });
  const evs = recorded.events;
  let i = 0;
  const step = () => {
    const now = (Date.now() - t0) * speed;
    for (; i < evs.length && evs[i].t <= now; i++) {
      const e = evs[i];
      const at = (x: number) => t0 + x / speed;
      const m: Record<string, unknown> = { ...e, seq: ++seq, t: at(e.t) };
      if ('runId' in e) m.runId = RUN;
      if (e.type === 'task' || e.type === 'transfer') Object.assign(m, { start: at(e.start), end: at(e.end) });
      send(m);
    }
    if (i < evs.length) return void setTimeout(step, 4);
    send({ type: 'queue', seq: ++seq, t: Date.now(), entries: [] });
    send({ type: 'run-result', result: { runId: RUN, status: 'finished', results: { total: { kind: 'scalar', dtype: 'float64', value: 1 } }, stats: { tasks: recorded.tasks, durationMs: Date.now() - t0, workers: [], transfers: { count: 0, bytes: 0 }, restarts: 0 }, digest: 'bench', storeId: null } }, true);
  };
  step();
}

const api: Record<string, () => unknown> = {
  'GET /api/catalog': () => catalog(),
  'GET /api/devices': () => ({ gpus: [], reason: 'bench', cpu: { cores: 2, model: 'bench', memoryTotalBytes: 2 ** 34, memoryFreeBytes: 2 ** 33 }, backends: [{ name: 'js', available: true }] }),
  'GET /api/workers': () => [],
  'GET /api/queue': () => [],
  'GET /api/runs': () => [],
  'GET /api/benchmarks': () => [],
  'GET /api/bench/progress': () => [],
  'POST /api/validate': () => ({ ok: true, tasks: recorded.tasks }),
  'POST /api/queue': () => {
    setTimeout(replay, 50);
    return entry;
  },
};

const server = http.createServer((req, res) => {
  void (async () => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = `${req.method} ${url.pathname}`;
    if (url.pathname.startsWith('/api/')) {
      for await (const _ of req) void _; // drain the body
      const body = route === 'GET /api/examples' ? await listExamples() : api[route]?.();
      res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(body ?? { error: `not in the bench server: ${route}` }));
    }
    const file = path.join(dir, url.pathname === '/' ? 'index.html' : path.normalize(url.pathname));
    if (!file.startsWith(dir) || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  })();
});
const wss = new WebSocketServer({ server, path: '/api/events' });
wss.on('connection', (ws) => {
  sockets.add(ws);
  ws.on('close', () => sockets.delete(ws));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as { port: number }).port;

const browser = await chromium.launch({ executablePath: process.env.GPUFLOW_CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
// GPUFLOW_RENDERS=1: which React components render while the run streams, counted per component
// through the hook React's production build calls on each commit (as its DevTools do): a component
// rendered in a commit carries the PerformedWork flag (1) on a fiber object that was not already the
// current one at the commit before (a subtree React skipped keeps its fibers, flags and all).
// Costs time itself: not for the figures.
const countRenders = process.env.GPUFLOW_RENDERS === '1';
if (countRenders)
  await page.addInitScript(`(() => {
    const renders = {}; let commits = 0; let c = 0; const seen = new WeakMap();
    window.__renders = { renders, commits: () => commits, on: false };
    const walk = (f) => {
      for (let n = f; n; n = n.sibling) {
        const prev = seen.get(n);
        seen.set(n, c);
        if (window.__renders.on && prev !== c - 1 && (n.tag === 0 || n.tag === 1 || n.tag === 11 || n.tag === 14 || n.tag === 15) && (n.flags & 1)) {
          const t = n.type && (n.type.type || n.type.render || n.type);
          const name = (t && (t.displayName || t.name)) || 'anonymous';
          renders[name] = (renders[name] || 0) + 1;
        }
        if (n.child) walk(n.child);
      }
    };
    window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = { supportsFiber: true, renderers: new Map(), inject: () => 1, checkDCE: () => {}, onScheduleFiberRoot: () => {}, onCommitFiberUnmount: () => {}, onPostCommitFiberRoot: () => {},
      onCommitFiberRoot: (_id, root) => { c++; if (window.__renders.on) commits++; walk(root.current.child); } };
  })()`);
await page.goto(`http://127.0.0.1:${port}/`);
await page.getByTestId('examples').selectOption('seed benchmark');
await page.locator('.react-flow__node[data-id="total"]').waitFor();
// Plain strings: tsx names the functions it compiles (__name), which the page lacks.
await page.evaluate(`(() => {
  window.__perf = { frames: 0, long: [], t0: performance.now() };
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__perf.long.push({ start: e.startTime, ms: e.duration }); }).observe({ type: 'longtask' });
  const tick = () => { window.__perf.frames++; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
})()`);
// GPUFLOW_PROFILE=file: a CPU profile of the page from Run to finished, summed by function (self time).
const profileTo = process.env.GPUFLOW_PROFILE;
const cdp = profileTo ? await page.context().newCDPSession(page) : null;
if (cdp) {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  await cdp.send('Profiler.start');
}
// Chromium's own counters of the page's main thread (Performance.getMetrics), from Run to finished:
// the seconds spent in script, style, layout and tasks in all, whatever their length.
const metricsCdp = await page.context().newCDPSession(page);
await metricsCdp.send('Performance.enable');
const metrics = async () => Object.fromEntries(((await metricsCdp.send('Performance.getMetrics')).metrics as Array<{ name: string; value: number }>).map((m) => [m.name, m.value]));
// GPUFLOW_TRACE=1: a Chromium trace from Run to finished, each long task split into script, GC,
// style, layout and paint (trace-attribution.ts). Tracing costs time itself: its runs are for the
// attribution, not the figures.
const tracing = process.env.GPUFLOW_TRACE === '1';
if (tracing) await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'toplevel', 'blink'] });
const metricsAtStart = await metrics();
const loadAtStart = os.loadavg()[0];
if (countRenders) await page.evaluate('window.__renders.on = true');
await page.getByTestId('run').click();
await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor({ timeout: 600_000 });
const perf = (await page.evaluate(`({ ...window.__perf, elapsed: performance.now() - window.__perf.t0, items: Number(document.querySelector('[data-testid="task-stream"]')?.getAttribute('data-items') ?? 0) })`)) as { frames: number; long: Array<{ start: number; ms: number }>; elapsed: number; items: number; t0: number };
if (cdp && profileTo) writeFileSync(profileTo, JSON.stringify(selfTimes((await cdp.send('Profiler.stop')).profile as Profile), null, 1));
const metricsAtEnd = await metrics();
const attributed = tracing ? attributeLongTasks((JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] }).traceEvents) : undefined;
const METRICS = ['TaskDuration', 'ScriptDuration', 'RecalcStyleDuration', 'LayoutDuration', 'ThreadTime', 'ProcessTime'];
const mainThread = Object.fromEntries(METRICS.filter((m) => m in metricsAtEnd).map((m) => [m, +(metricsAtEnd[m] - metricsAtStart[m]).toFixed(2)]));
const renders = countRenders ? ((await page.evaluate('({ commits: window.__renders.commits(), byComponent: window.__renders.renders })')) as { commits: number; byComponent: Record<string, number> }) : undefined;
await browser.close();
server.close();
const long = perf.long.map((l) => l.ms).sort((a, b) => b - a);
const out = {
  bench: 'renderer-replay-11k',
  tasks: recorded.tasks,
  events: recorded.events.length,
  speed,
  batched: !unbatched,
  itemsDrawn: perf.items,
  seconds: +(perf.elapsed / 1000).toFixed(1),
  fps: +((perf.frames * 1000) / perf.elapsed).toFixed(1),
  longTasks: long.length,
  longTaskMs: Math.round(long.reduce((a, b) => a + b, 0)),
  longestMs: Math.round(long[0] ?? 0),
  over100ms: long.filter((x) => x > 100).length,
  /** Each long task: seconds after the counters started (just before Run), and its ms. */
  longTasksAt: perf.long.map((l) => [+((l.start - perf.t0) / 1000).toFixed(2), Math.round(l.ms)]),
  /** Seconds from Run to finished, Chromium's Performance.getMetrics (ThreadTime: the main thread's CPU time). */
  mainThread,
  ...(attributed ? { traced: { longTasks: attributed, total: attributed.reduce<Record<string, number>>((a, t) => { for (const [k, v] of Object.entries(t.by)) a[k] = (a[k] ?? 0) + v; return a; }, {}) } } : {}),
  ...(renders ? { renders: { commits: renders.commits, byComponent: Object.fromEntries(Object.entries(renders.byComponent).sort((x, y) => y[1] - x[1])) } } : {}),
  loadAverage: { atStart: +loadAtStart.toFixed(1), atEnd: +os.loadavg()[0].toFixed(1) },
  date: new Date().toISOString(),
  note: 'headless Debian Chromium, 1600x1000, shared 2-core machine; long tasks include the first load of lazy chunks',
};
writeFileSync(process.env.GPUFLOW_REPLAY_OUT ?? 'bench/results/renderer-replay-11k.json', JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out));
process.exit(0);

type Profile = { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>; samples?: number[]; timeDeltas?: number[] };

/**
 * Self time per function (name, file:line) in ms, largest first (the top 40); and each stretch of
 * 50 ms or more with the main thread never idle, with the functions on its stacks (inclusive ms).
 */
function selfTimes(p: Profile) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const nameOf = (id: number) => {
    const f = byId.get(id)!.callFrame;
    return `${f.functionName || '(anon)'} ${path.basename(f.url)}:${f.lineNumber + 1}`;
  };
  const self = new Map<string, number>();
  const stretches: Array<{ ms: number; top: Array<[string, number]> }> = [];
  let cur = new Map<string, number>();
  let curMs = 0;
  const close = () => {
    if (curMs >= 50) stretches.push({ ms: Math.round(curMs), top: [...cur].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([n, t]) => [n, Math.round(t)]) });
    cur = new Map();
    curMs = 0;
  };
  (p.samples ?? []).forEach((id, i) => {
    const dt = (p.timeDeltas?.[i + 1] ?? 0) / 1000;
    const name = nameOf(id);
    self.set(name, (self.get(name) ?? 0) + dt);
    if (name.startsWith('(idle)')) return close();
    curMs += dt;
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const nm = nameOf(n);
      if (!seen.has(nm)) cur.set(nm, (cur.get(nm) ?? 0) + dt);
      seen.add(nm);
    }
  });
  close();
  return { self: [...self].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([n, t]) => [n, Math.round(t)]), stretches: stretches.sort((a, b) => b.ms - a.ms).slice(0, 12) };
}
