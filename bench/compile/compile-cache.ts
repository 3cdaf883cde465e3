// What a warm serve saves when a run it compiled before comes again (main/engine/compile/compile-cache.ts):
// a compile of the workflow for the pool as the engine tells the compiler of it (median of later
// compiles in this process: serve's are warm) against the cache's key (the canonical JSON of
// the validated document and the options) and look-up, which is what a hit costs instead.
// Workloads: the seed example as issue 30's 2 TB run (N=500000, chunks=10000) for 4 cuda GPU
// workers (coarsened), for 1 virtual GPU (CPU-sized tasks) and with no GPU worker (2 859 tasks),
// and the example's default params.
// Run: node --import tsx bench/compile/compile-cache.ts [repeats=9] [out.jsonl]
import { execSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CompileCache, type GraphOptions } from '../../main/engine/compile/compile-cache';
import { CPU_BACKED_TASK_ELEMENTS, GPU_TASK_ELEMENTS } from '../../main/engine/compile/coarsen';
import { compileWorkflow } from '../../main/engine/compile/compile';
import { validateWorkflow } from '../../main/engine/validate';
import { median, ms } from './timing';

const repeats = Number(process.argv[2] ?? 9);
const out = process.argv[3] ?? path.join('bench', 'results', 'compile-cache.jsonl');
const commit = execSync('git rev-parse --short HEAD').toString().trim();
const seed = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')) as unknown;
const big = { N: 500000, chunks: 10000 };

const cases: Array<{ label: string; params: Record<string, number>; opts: GraphOptions }> = [
  { label: '4 cuda GPU workers (80 GB each)', params: big, opts: { maxTaskBytes: 80e9, device: { gpus: 4, bytes: 80e9 }, arrayResource: 'gpu', gpuShare: { gpus: 4, taskElements: GPU_TASK_ELEMENTS } } },
  { label: '1 virtual GPU', params: big, opts: { gpuShare: { gpus: 1, taskElements: CPU_BACKED_TASK_ELEMENTS } } },
  { label: 'CPU workers only', params: big, opts: {} },
  { label: 'CPU workers only, default params', params: {}, opts: {} },
];


for (const c of cases) {
  const wf = validateWorkflow(seed, c.params);
  const cache = new CompileCache();
  let tasks = 0;
  compileWorkflow(wf, c.opts);
  const compile = Array.from({ length: repeats }, () => ms(() => (tasks = compileWorkflow(wf, c.opts).tasks.size)));
  cache.set(cache.key(wf, c.opts), compileWorkflow(wf, c.opts));
  const hit = Array.from({ length: repeats }, () =>
    ms(() => {
      if (!cache.get(cache.key(validateWorkflow(seed, c.params), c.opts))) throw new Error('no hit');
    }),
  );
  // The hit above validates the document again, as serve does before it asks; the validation alone:
  const validate = Array.from({ length: repeats }, () => ms(() => validateWorkflow(seed, c.params)));
  const row = {
    bench: 'compile-cache',
    commit,
    workload: `examples/seed-benchmark.json ${JSON.stringify(c.params)}`,
    pool: c.label,
    tasks,
    compileMedianMs: +median(compile).toFixed(3),
    validateAndHitMedianMs: +median(hit).toFixed(3),
    validateMedianMs: +median(validate).toFixed(3),
    repeats,
    machine: `${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}`,
    loadavg: os.loadavg()[0],
  };
  console.log(JSON.stringify(row));
  appendFileSync(out, JSON.stringify(row) + '\n');
}
