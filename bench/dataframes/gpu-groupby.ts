/**
 * The dataframe acceptance workload on the GPU machine, in one run: `partitions` x `rows` of the
 * timeseries, groupby name, mean of x, on
 *   - CPU workers: one worker thread per core (groupby.ts's run: each generates and keeps its
 *     partitions, then runs the chunk step; partials aggregated on the main thread);
 *   - a GPU worker's kernels: each partition generated and grouped on the device in one call
 *     (timeseries-groupby.ts -> df_timeseries.cu, what a GPU worker's fused chunk task runs:
 *     only the per-slot sums come back); partials aggregated as on the CPU path;
 *   - pandas on one thread (pandas_groupby.py), same run;
 * plus the df GPU checks (test/gpu/df-checks.ts) first. Writes dataframes-gpu.json and .md into
 * --out. Bundled for the GPU machine by bench/dataframes/build.sh; run by device.sh (< 90 s).
 *
 *   node .devbuild/dataframes-gpu.mjs --out DIR [--partitions 30] [--rows 2600000] [--workers 16]
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { dfCuda } from '../../native/df';
import { nativeInfo } from '../../native/index';
import { runDfChecks } from '../../test/gpu/df-checks';
import { timeseriesGroupbyNative } from '../../worker/kernels/df/timeseries-groupby';
import { groupbyAggregate, type GroupbySpec } from '../../worker/kernels/df/groupby';
import type { Table } from 'apache-arrow';
import { arg, flag, machine } from './common';
import { P, R, pandas, run } from './groupby';

const seed = 1;
const spec: GroupbySpec = { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }] };
const outDir = flag('out') ?? 'bench/results';
type Row = Record<string, unknown>;

async function gpuRun(): Promise<Row> {
  const d = dfCuda();
  if ('unavailable' in d) return { workers: 'gpu', error: `cuda df kernels unavailable: ${d.unavailable}` };
  const cuda = d.addon;
  // Warm-up: device context, memory pool, module load.
  await timeseriesGroupbyNative(cuda.cudaDfTimeseriesGroupby, { seed, partition: 0, rows: 100_000 }, spec);
  const t0 = performance.now();
  const partials: Table[] = [];
  for (let p = 0; p < P; p++) {
    const partial = await timeseriesGroupbyNative(cuda.cudaDfTimeseriesGroupby, { seed, partition: p, rows: R }, spec);
    if ('unsupported' in partial) return { workers: 'gpu', error: `fell back: ${partial.unsupported}` };
    partials.push(partial);
  }
  const a0 = performance.now();
  const result = groupbyAggregate(partials, spec);
  const aggregateMs = performance.now() - a0;
  const wholeMs = performance.now() - t0;
  const first = result.get(0)?.toJSON() as { name: string; x_mean: number };
  console.log(`GPU worker: generate + group on the device ${(a0 - t0).toFixed(1)} ms (${P} calls, one after another), host aggregate ${aggregateMs.toFixed(1)} ms; ${first.name} mean x ${first.x_mean}`);
  return {
    workers: 'gpu',
    columns: ['name', 'x'],
    generateMs: null,
    groupbyMs: wholeMs,
    aggregateMs,
    groupbyRowsPerS: (P * R) / (wholeMs / 1000),
    wholeMs,
    wholeRowsPerS: (P * R) / (wholeMs / 1000),
    aliceMeanX: first.x_mean,
  };
}

function fmt(x: unknown, digits = 0): string {
  return typeof x === 'number' ? x.toFixed(digits) : String(x ?? '');
}

function markdown(result: Row): string {
  const runs = result.runs as Row[];
  const pd = result.pandas as Row | null;
  const checks = result.checks as { passed: number; failed: { name: string; error: string | null }[] };
  const lines = [
    `# Dataframe groupby on the GPU machine (${String((result.native as Row).device ?? 'no device')})`,
    '',
    `${result.partitions} partitions x ${result.rows} rows of the timeseries, groupby name, mean of x. ${String((result.machine as Row).cpus)} cores.`,
    `df GPU checks (device kernels vs js): ${checks.passed} passed, ${checks.failed.length} failed${checks.failed.length ? `: ${checks.failed.map((f) => `${f.name}: ${f.error}`).join('; ')}` : ''}.`,
    '',
    '| engine | columns | generate ms | groupby ms | groupby rows/s | whole rows/s | Alice mean x |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...runs.map((r) => r.error ? `| ${String(r.workers)} | | | | ${String(r.error)} | | |` : `| ${r.workers === 'gpu' ? 'GPU worker (cuda)' : `${String(r.workers)} CPU workers`} | ${Array.isArray(r.columns) ? r.columns.join(', ') : String(r.columns)} | ${fmt(r.generateMs)} | ${fmt(r.groupbyMs, 1)} | ${fmt((r.groupbyRowsPerS as number) / 1e6, 1)} M | ${fmt((r.wholeRowsPerS as number) / 1e6, 1)} M | ${fmt(r.aliceMeanX, 12)} |`),
  ];
  if (pd) lines.push(`| pandas ${String(pd.pandas)} (1 thread, string key) | all | ${fmt((pd.generate_s as number) * 1000)} | ${fmt((pd.groupby_string_key_s as number) * 1000, 1)} | ${fmt((pd.groupby_string_rows_per_s as number) / 1e6, 1)} M | | |`, `| pandas (category key) | all | | ${fmt((pd.groupby_category_key_s as number) * 1000, 1)} | ${fmt((pd.groupby_category_rows_per_s as number) / 1e6, 1)} M | | |`);
  else lines.push('', 'pandas: not found on this machine (no baseline in this run).');
  lines.push('', 'GPU worker: each partition generated and grouped on the device in one call (source fusion, df_timeseries.cu), the 30 calls one after another, plus the host aggregate of the partials; the groupby column is that whole time. The whole workflow through the engine is in dataframes-engine-groupby-gpu.json.');
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const native = nativeInfo();
  const checkResults = await runDfChecks(dfCuda());
  const checks = { passed: checkResults.filter((r) => !r.error).length, failed: checkResults.filter((r) => r.error) };
  console.log(`df GPU checks: ${checks.passed} passed, ${checks.failed.length} failed`);
  for (const f of checks.failed) console.log(`  FAIL ${f.name}: ${f.error}`);
  const W = arg('workers', cpus().length);
  const runs: Row[] = [];
  runs.push(await gpuRun());
  runs.push(await run(W));
  runs.push(await run(W, ['name', 'x']));
  const pd = pandas();
  const result: Row = { bench: 'dataframes/gpu-groupby', machine: machine(), native, partitions: P, rows: R, totalRows: P * R, checks, runs, pandas: pd, seconds: (performance.now() - t0) / 1000 };
  writeFileSync(join(outDir, 'dataframes-gpu.json'), JSON.stringify(result, null, 2) + '\n');
  const md = markdown(result);
  writeFileSync(join(outDir, 'dataframes-gpu.md'), md);
  console.log(md);
  console.log(`done in ${fmt(result.seconds, 1)} s`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
