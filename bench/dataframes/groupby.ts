/**
 * The dataframe acceptance workload: `partitions` x `rows` of the timeseries, groupby name, mean
 * of x. Worker threads stand in for CPU worker processes (one per core by default): each
 * generates and keeps its partitions (timed as one phase, all workers at once), then runs the
 * chunk step and returns partials as IPC bytes, which the main thread aggregates (timed as the
 * second phase). Also runs the pandas baseline (python3, one thread) in the same run when
 * python3 with pandas is found.
 *
 * Runs twice per worker count: generating all five columns (as dask does), and generating only
 * name and x (the projection the compiler can push into the source).
 *
 *   npx tsx bench/dataframes/groupby.ts [--partitions 30] [--rows 2600000] [--workers N] [--out DIR]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { groupbyAggregate, type GroupbySpec } from '../../worker/kernels/df/groupby';
import { fromIPC } from '../../worker/kernels/df/ipc';
import { arg, flag, machine, save } from './common';

export const P = arg('partitions', 30);
export const R = arg('rows', 2_600_000);
const seed = 1;
const spec: GroupbySpec = { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }] };
const here = fileURLToPath(import.meta.url);

function startWorker(partitions: number[], columns?: string[]): Promise<Worker> {
  const ts = here.endsWith('.ts');
  const file = join(dirname(here), `groupby-worker.${ts ? 'ts' : 'mjs'}`);
  // Under tsx the worker registers tsx's loader itself (Node 20 workers ignore --import).
  const w = ts
    ? new Worker(`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(file).href)}); });`, { eval: true, workerData: { seed, rows: R, partitions, columns } })
    : new Worker(file, { workerData: { seed, rows: R, partitions, columns } });
  return new Promise((res, rej) => {
    w.once('message', () => res(w));
    w.once('error', rej);
  });
}

function ask<T>(w: Worker, msg: string): Promise<T> {
  return new Promise((res, rej) => {
    w.once('message', (m: T) => res(m));
    w.once('error', rej);
    w.postMessage(msg);
  });
}

/** One timed run on W worker threads (exported for bench/dataframes/gpu-groupby.ts). */
export async function run(W: number, columns?: string[]): Promise<Record<string, unknown>> {
  const shares = Array.from({ length: W }, (_, k) => Array.from({ length: P }, (_, p) => p).filter((p) => p % W === k));
  const workers = await Promise.all(shares.filter((s) => s.length).map((s) => startWorker(s, columns)));
  const g0 = performance.now();
  await Promise.all(workers.map((w) => ask(w, 'generate')));
  const generateMs = performance.now() - g0;
  const b0 = performance.now();
  const replies = await Promise.all(workers.map((w) => ask<{ partials: Uint8Array[] }>(w, 'groupby')));
  const result = groupbyAggregate(replies.flatMap((r) => r.partials.map((b) => fromIPC(b))), spec);
  const groupbyMs = performance.now() - b0;
  for (const w of workers) w.postMessage('exit');
  const first = result.get(0)?.toJSON() as { name: string; x_mean: number };
  console.log(`workers ${W}, columns ${columns ?? 'all'}: generate ${generateMs.toFixed(0)} ms, groupby ${groupbyMs.toFixed(1)} ms; ${first.name} mean x ${first.x_mean}`);
  return {
    workers: W,
    columns: columns ?? 'all',
    generateMs,
    groupbyMs,
    groupbyRowsPerS: (P * R) / (groupbyMs / 1000),
    wholeMs: generateMs + groupbyMs,
    wholeRowsPerS: (P * R) / ((generateMs + groupbyMs) / 1000),
    aliceMeanX: first.x_mean,
  };
}

/** The pandas baseline in the same run (python3 + pandas), or null when absent. */
export function pandas(): Record<string, unknown> | null {
  // Beside this file, or (in a bundle under .devbuild/) from the repository root.
  const beside = join(dirname(here), 'pandas_groupby.py');
  const script = existsSync(beside) ? beside : 'bench/dataframes/pandas_groupby.py';
  const py = flag('python') ?? 'python3';
  const r = spawnSync(py, [script, String(P), String(R)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) {
    console.log(`pandas baseline skipped: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}`);
    return null;
  }
  return JSON.parse(r.stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
}

async function main(): Promise<void> {
  const all = arg('workers', cpus().length);
  const runs: Record<string, number>[] = [];
  for (const cols of [undefined, ['name', 'x']]) {
    runs.push((await run(1, cols)) as Record<string, number>);
    if (all > 1) runs.push((await run(all, cols)) as Record<string, number>);
  }
  const pd = pandas();
  const best = runs[all > 1 ? 1 : 0];
  const result = {
    bench: 'dataframes/groupby',
    machine: machine(),
    partitions: P,
    rows: R,
    totalRows: P * R,
    runs,
    pandas: pd,
    ratios: pd ? {
      groupby_ours_allWorkers_over_pandas_string: best.groupbyRowsPerS / (pd.groupby_string_rows_per_s as number),
      groupby_ours_1worker_over_pandas_string: runs[0].groupbyRowsPerS / (pd.groupby_string_rows_per_s as number),
      groupby_ours_1worker_over_pandas_category: runs[0].groupbyRowsPerS / (pd.groupby_category_rows_per_s as number),
    } : null,
  };
  console.log(JSON.stringify(result, null, 2));
  console.log('wrote', save('dataframes-groupby.json', result));
}

// Run when executed (tsx bench/dataframes/groupby.ts), not when gpu-groupby.ts imports run / pandas.
if (/(^|\/)groupby\.(ts|mjs)$/.test(process.argv[1] ?? '')) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
