/**
 * Compiling a million-task graph (issue 29 item 5): random_normal 10^6 x 10^6 in 1000² chunks,
 * then a sum (10^6 chunk programs + 142 860 combines = 1 142 860 tasks, under MAX_TASKS), in one
 * process, as serve's compileAsync does it (in slices). Records wall and CPU time of the compile,
 * peak RSS and heap, and the load of the machine (the shared build container is oversubscribed:
 * compare CPU time, not wall).
 *
 *   npx tsx bench/engine/compile-million.ts [--n 1000000] [--chunk 1000] [--label now]
 *     -> bench/results/compile-million-<label>.json
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { compileWorkflowAsync } from '../../main/engine/compile/compile';
import { validateWorkflow } from '../../main/engine/validate';

const args = process.argv.slice(2);
const opt = (name: string, d: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : d);
const N = Number(opt('n', '1000000'));
const C = Number(opt('chunk', '1000'));
const label = opt('label', 'now');

const doc = {
  format: 'gpuflow.workflow/1',
  nodes: [
    { id: 'x', op: 'random_normal', params: { shape: [N, N], chunks: [C, C] } },
    { id: 'total', op: 'reduce', params: { op: 'sum' } },
  ],
  edges: [{ source: 'x', sourcePort: 'out', target: 'total', targetPort: 'x' }],
};

let peakRss = 0;
let peakHeap = 0;
const sample = setInterval(() => {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
}, 50);
const load = loadavg()[0];
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const compiled = await compileWorkflowAsync(validateWorkflow(doc));
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
clearInterval(sample);
const m = process.memoryUsage();
peakRss = Math.max(peakRss, m.rss);
peakHeap = Math.max(peakHeap, m.heapUsed);
const out = {
  bench: 'compile-million',
  n: N,
  chunk: C,
  tasks: compiled.tasks.size,
  wallMs: Math.round(wallMs),
  cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  peakRssMiB: Math.round(peakRss / 2 ** 20),
  peakHeapMiB: Math.round(peakHeap / 2 ** 20),
  loadavg1: load,
  node: process.version,
  when: new Date().toISOString(),
};
console.log(JSON.stringify(out));
mkdirSync('bench/results', { recursive: true });
writeFileSync(`bench/results/compile-million-${label}.json`, JSON.stringify(out, null, 2) + '\n');
