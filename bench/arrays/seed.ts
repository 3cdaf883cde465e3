/**
 * Elements/s of the seed workload (examples/seed-benchmark.json: x = normal(10, 1, (N, N));
 * (x + 1)[::2, ::2].sum()) through the real engine: forked CPU workers, the scheduler, peer
 * transfers. Configurations: backends ['js'] and ['native-cpu'] (when the addon is built; the
 * backend that actually ran the tasks is recorded), each on 1 CPU worker and on one worker per
 * core. elements/s counts the N x N logical input; the fused program generates only the quarter
 * the slice keeps (docs/random.md), so it is the rate a user sees, not a generator rate.
 *
 *   npx tsx bench/arrays/seed.ts [N] [chunks] [repeats]   ->  bench/results/arrays-seed.json
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { execSync } from 'node:child_process';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';

const N = Number(process.argv[2] ?? 4000);
const CHUNKS = Number(process.argv[3] ?? 1000);
const REPEATS = Number(process.argv[4] ?? 3);
const doc = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));

interface Row {
  backend: string;
  workers: number;
  ranOn: Record<string, number>;
  seconds: number[];
  best: number;
  elementsPerSecond: number;
  sum: number;
}

async function measure(backend: 'js' | 'native-cpu', workers: number): Promise<Row | { backend: string; workers: number; skipped: string }> {
  const engine = new Engine(await discover(), { launcher: forkLauncher(), useGpus: false, cpuWorkers: workers, threadsPerCpuWorker: 1, backends: backend === 'js' ? ['js'] : ['native-cpu', 'js'] });
  try {
    await engine.start();
    const wf = validateWorkflow(doc, { N, chunks: CHUNKS });
    const seconds: number[] = [];
    const ranOn: Record<string, number> = {};
    let sum = NaN;
    for (let r = 0; r <= REPEATS; r++) {
      const t0 = performance.now();
      const res = await engine.run(wf).result;
      const dt = (performance.now() - t0) / 1000;
      if (res.status !== 'finished') throw new Error(`run ${res.status}: ${res.error}`);
      const total = res.results.total;
      sum = total.kind === 'scalar' ? total.value : NaN;
      if (r === 0) continue; // warm-up: worker start, JIT
      seconds.push(dt);
      for (const w of res.stats.workers) for (const [b, n] of Object.entries(w.backends)) ranOn[b] = (ranOn[b] ?? 0) + n;
    }
    if (backend === 'native-cpu' && !ranOn['native-cpu']) return { backend, workers, skipped: 'the native addon is not built here; every task fell back to js' };
    const best = Math.min(...seconds);
    return { backend, workers, ranOn, seconds, best, elementsPerSecond: (N * N) / best, sum };
  } finally {
    await engine.shutdown();
  }
}

const all = availableParallelism();
const rows = [];
for (const backend of ['js', 'native-cpu'] as const) {
  for (const workers of [...new Set([1, all])]) {
    const row = await measure(backend, workers);
    console.log(JSON.stringify(row));
    rows.push(row);
  }
}
let commit = 'unknown';
try {
  commit = execSync('git rev-parse --short HEAD').toString().trim();
} catch {
  /* not a checkout */
}
mkdirSync('bench/results', { recursive: true });
const out = {
  workload: 'examples/seed-benchmark.json',
  N,
  chunks: CHUNKS,
  repeats: REPEATS,
  host: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg() },
  note: 'elements/s = N*N / best wall time of a whole run (compile, schedule, compute, fetch); the machine is shared, see loadavg',
  commit,
  at: new Date().toISOString(),
  rows,
};
writeFileSync('bench/results/arrays-seed.json', `${JSON.stringify(out, null, 2)}\n`);
console.log('wrote bench/results/arrays-seed.json');
