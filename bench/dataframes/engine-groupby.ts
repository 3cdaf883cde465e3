/**
 * The dataframe acceptance workload through the whole engine: examples/dataframe-groupby.json
 * (timeseries, groupby name, mean of x) compiled and run on forked CPU worker processes, with
 * partials moving between workers as Arrow IPC. Unlike groupby.ts (worker threads and the kernels
 * called directly) this includes compile, scheduling, IPC transfers and fetching the result.
 * Wall time per run (median of --reps after one warm-up), rows/s over the whole run, and the
 * workers' busy time per task op from the task stream (generation vs the groupby steps).
 *
 *   npx tsx bench/dataframes/engine-groupby.ts [--partitions 30] [--rows 260000] [--workers 2] [--reps 3] [--out DIR]
 *
 * --gpus N: N GPU workers (cuda backend, js fallback) and no CPU worker instead, on the GPU
 * machine (bundled by build.sh with the worker of bench/engine-gpu/build.sh; device.sh runs it).
 * Source fusion (compile/df-fuse.ts) makes each chunk task generate and group its partition on the
 * device. --unfused compiles without it (the partition generated on the host, then grouped).
 */
import { readFileSync } from 'node:fs';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { compileWorkflow } from '../../main/engine/compile/compile';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { arg, machine, save } from './common';

const P = arg('partitions', 30);
const R = arg('rows', 260_000);
const W = arg('workers', 2);
const reps = arg('reps', 3);
const G = arg('gpus', 0);
const unfused = process.argv.includes('--unfused');
// From the working directory (the project root), so the bundle in .devbuild/ reads it too.
const doc = JSON.parse(readFileSync('examples/dataframe-groupby.json', 'utf8'));

async function main(): Promise<void> {
  const d = G > 0 ? await discover() : await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
  if (G > d.gpus.length) throw new Error(`--gpus ${G}, but ${d.gpus.length} GPUs were found${d.reason ? ` (${d.reason})` : ''}`);
  const pool = G > 0 ? { useGpus: true, maxGpus: G, cpuWorkers: 0, backends: ['cuda', 'js'] as ('cuda' | 'js')[] } : { useGpus: false, cpuWorkers: W, backends: ['js'] as 'js'[] };
  const engine = new Engine(d, { launcher: forkLauncher(), virtualGpus: 0, threadsPerCpuWorker: 1, ...pool });
  await engine.start();
  const runs: Record<string, unknown>[] = [];
  try {
    const wf = validateWorkflow(doc, { partitions: P, rows_per_partition: R });
    for (let r = 0; r <= reps; r++) {
      const busy: Record<string, number> = {};
      const backends = new Set<string>();
      const h = engine.run(wf, undefined, unfused ? { compiled: compileWorkflow(wf, { fuseSources: false }) } : {});
      const unsub = engine.bus.subscribe((e) => {
        if (e.type !== 'task' || e.runId !== h.runId) return;
        busy[e.op] = (busy[e.op] ?? 0) + (e.end - e.start);
        if (e.backend) backends.add(`${e.op}: ${e.backend}`);
      });
      const t0 = performance.now();
      const res = await h.result;
      const ms = performance.now() - t0;
      unsub();
      if (res.status !== 'finished') throw new Error(`run ${res.status}: ${res.error}`);
      const out = res.results.mean_x;
      runs.push({ warmup: r === 0, wallMs: Math.round(ms), rowsPerSec: Math.round((P * R) / (ms / 1000)), busyMsByOp: Object.fromEntries(Object.entries(busy).map(([k, v]) => [k, Math.round(v)])), backends: [...backends], transfers: res.stats.transfers, groups: out?.kind === 'table' ? out.rows : null });
      console.log(JSON.stringify(runs[runs.length - 1]));
    }
  } finally {
    await engine.shutdown();
  }
  const timed = runs.filter((x) => !x.warmup).map((x) => x.wallMs as number).sort((a, b) => a - b);
  const median = timed[Math.floor(timed.length / 2)];
  const result = {
    bench: 'engine-groupby',
    workload: `examples/dataframe-groupby.json: ${P} partitions x ${R} rows of the timeseries (${P * R} rows), groupby name, mean of x; generation included`,
    workers: G > 0 ? `${G} GPU worker process${G > 1 ? 'es' : ''}, cuda kernels (js fallback)` : `${W} CPU worker processes, 1 thread each, js kernels`,
    fusedSources: !unfused,
    medianWallMs: median,
    rowsPerSec: Math.round((P * R) / (median / 1000)),
    // The groupby steps alone, per worker-second of busy time (generation excluded).
    groupbyRowsPerWorkerSec: Math.round(medianOf(runs.filter((x) => !x.warmup).map((x) => {
      const b = x.busyMsByOp as Record<string, number>;
      return (P * R) / (((b['groupby-chunk'] ?? 0) + (b['groupby-combine'] ?? 0) + (b['groupby-aggregate'] ?? 0)) / 1000);
    }))),
    runs,
    machine: machine(),
    note: 'shared 2-core build machine under load from other engineers: compare ratios, not absolute numbers',
  };
  console.log(`wrote ${save(`dataframes-engine-groupby${G > 0 ? '-gpu' : ''}${unfused ? '-unfused' : ''}.json`, result)}`);
}

function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

void main();
