/**
 * Per-task overhead of a Dask cluster against the local engine: the seed example (CPU, float64,
 * N and chunks as given) run by `gpuflow run` locally and with `--dask local:W`, each run's wall
 * time and task count from `--json`; writes bench/results/dask-overhead-<date>.json.
 *   node --import tsx bench/dask/overhead.ts [N=40000] [chunks=2000] [workers=8]
 * Overhead per task = (dask wall - local wall) / tasks. Needs /usr/bin/python3 with distributed
 * (or GPUFLOW_PYTHON) and, for a fair comparison, libgpuflow_kernels.so in native/build.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

// `--dask local:W` is bounded by the machine's cores (main/dask/address.ts localWorkersOver).
const [N = '40000', chunks = '2000', workers = String(availableParallelism())] = process.argv.slice(2);

function run(extra: string[]): { ms: number; tasks: number; digest: string; perWorker: Record<string, number> } {
  const r = spawnSync(process.execPath, ['bin/gpuflow.mjs', 'run', 'examples/seed-benchmark.json', '--json', '--no-store', '--param', `N=${N}`, '--param', `chunks=${chunks}`, ...extra], {
    env: { GPUFLOW_PYTHON: '/usr/bin/python3', ...process.env },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`gpuflow run ${extra.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const j = JSON.parse(r.stdout) as { digest: string; stats: { tasks: number; durationMs: number }; tasksPerWorker: Record<string, number> };
  return { ms: j.stats.durationMs, tasks: j.stats.tasks, digest: j.digest, perWorker: j.tasksPerWorker };
}

const local = run(['--cpu-workers', workers]);
const dask = run(['--dask', `local:${workers}`]);
const result = {
  bench: 'dask-overhead',
  date: new Date().toISOString(),
  workflow: 'examples/seed-benchmark.json',
  params: { N: Number(N), chunks: Number(chunks), dtype: 'float64' },
  workers: Number(workers),
  local,
  dask,
  digestsAgree: local.digest === dask.digest,
  overheadMsPerTask: (dask.ms - local.ms) / dask.tasks,
};
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/dask-overhead-${result.date.slice(0, 10)}.json`;
writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
process.stdout.write(`${file}\n${JSON.stringify(result, null, 2)}\n`);
