// The compile `gpuflow run` no longer does twice (issue 30 refactor): a search's graph was compiled
// by run.ts to plan the GPU workers per GPU and again by the engine's early compile; `--dask`
// compiled for its refusal check and again for the run. Each now compiles once, so a run saves
// one compile with no options, the one timed here: the first in this process (cold, as the first
// of the two was) and the median of later ones (warm, as the second was). The count of compiles
// per run (2 -> 1) is checked by test/integration/compile-once.test.ts. A search beside a warm
// serve was compiled by the CLI to decide whether serve could take it, then (when it could not,
// the small-trial search) again for the local run; now serve lends its pool the GPU workers the
// search plans and the CLI sends it unread: its one saved compile is the one timed (as a later
// compile here, not the process's first; the CLI's was its first, after loading the compiler).
// Run: node --import tsx bench/compile/compile-once.ts [repeats=9] [out.jsonl]
import { execSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileWorkflow } from '../../main/engine/compile/compile';
import { validateWorkflow } from '../../main/engine/validate';
import { median, ms } from './timing';

const repeats = Number(process.argv[2] ?? 9);
const out = process.argv[3] ?? path.join('bench', 'results', 'compile-once.jsonl');
const commit = execSync('git rev-parse --short HEAD').toString().trim();

const cases: Array<{ example: string; params: Record<string, number>; path: string }> = [
  { example: 'tuning-mnist-mlp.json', params: {}, path: 'search: planning the GPU workers per GPU' },
  { example: 'seed-benchmark.json', params: {}, path: '--dask: the refusal check' },
  { example: 'seed-benchmark.json', params: { N: 500000, chunks: 10000 }, path: '--dask: the refusal check' },
  { example: '../test/fixtures/workflows/search-wide-small.json', params: {}, path: 'search beside a warm serve: the CLI planning its GPU workers per GPU' },
  { example: 'tuning-random-search.json', params: {}, path: 'search beside a warm serve: the CLI planning its GPU workers per GPU' },
];


for (const c of cases) {
  const wf = validateWorkflow(JSON.parse(readFileSync(path.join('examples', c.example), 'utf8')), c.params);
  let tasks = 0;
  const cold = ms(() => (tasks = compileWorkflow(wf).tasks.size));
  const warm = Array.from({ length: repeats }, () => ms(() => compileWorkflow(wf)));
  const row = { bench: 'compile-once', commit, example: c.example, params: c.params, path: c.path, tasks, coldMs: +cold.toFixed(2), warmMedianMs: +median(warm).toFixed(2), repeats, machine: `${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}`, loadavg: os.loadavg()[0] };
  console.log(JSON.stringify(row));
  appendFileSync(out, JSON.stringify(row) + '\n');
}
