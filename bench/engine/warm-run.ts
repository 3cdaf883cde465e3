/**
 * Where a warm run's milliseconds go (issue 30: the 78 M-row groupby took 23–28 ms of engine run
 * on four H100s and 27–29 on one in a warm serve, its kernels a few ms). One process holds what
 * `gpuflow serve` holds: an engine whose workers are up, a store (SQLite, in a temp dir) and the
 * service that records runs; then the same workflow runs again and again through
 * GpuflowService.runAsync, as an attached `gpuflow run` hands it to serve. Per run, from main's
 * clock (performance.now) and the engine's events:
 *   api        runAsync called -> the run started (validate, compile: a hit after the first,
 *              the run's record, the engine's run)
 *   dispatch   RunController built -> the first task sent (the scheduler, the placement)
 *   chunks     -> the last chunk task's done received by main
 *   tail       -> the final task's done (the combine levels)
 *   collect    -> the engine's result (the outputs read, the table preview)
 *   record     -> the service's result (the digest, the run's events and end written to SQLite)
 *   total      runAsync called -> the service's result; engine: stats.durationMs
 *   mainCpu    main's CPU time over the whole run
 * Workers: GPU workers whose CUDA calls the CPU kernels answer (GPUFLOW_BENCH_FAKE_CUDA: the
 * dataframe ops run on their js kernels there, native/fake-cuda.ts), virtual GPUs or CPU workers.
 *
 *   npx tsx bench/engine/warm-run.ts [--root <checkout>] [--workers fake|virtual|cpu] [--gpus 4]
 *     [--workflow groupby|seed] [--rows 500] [--n 800] [--runs 20] [--warm 3]
 * prints one JSON line (the medians and every run); --root runs another checkout's engine with
 * this file (A/B: bench/engine/warm-run-ab.mjs).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type { EngineEvent } from '../../common/events';

process.env.GPUFLOW_BENCH_FAKE_CUDA = '1';
process.env.GPUFLOW_NVIDIA_SMI = '/nonexistent/nvidia-smi';

const args = process.argv.slice(2);
const opt = (name: string, d: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : d);
const ROOT = path.resolve(opt('root', '.'));
const WORKERS = opt('workers', 'fake');
const GPUS = Number(opt('gpus', '4'));
const WORKFLOW = opt('workflow', 'groupby');
const RUNS = Number(opt('runs', '20'));
const WARM = Number(opt('warm', '3'));
if (WORKERS !== 'fake' && WORKERS !== 'virtual' && WORKERS !== 'cpu') throw new Error(`--workers: expected fake, virtual or cpu, got '${WORKERS}'`);
if (WORKFLOW !== 'groupby' && WORKFLOW !== 'seed') throw new Error(`--workflow: expected groupby or seed, got '${WORKFLOW}'`);

// Another checkout's modules, loaded by path (their types are this checkout's).
const load = <T>(rel: string): Promise<T> => import(path.join(ROOT, rel)) as Promise<T>;
const { forkLauncher } = await load<typeof import('../../main/cluster/fork-launcher')>('main/cluster/fork-launcher.ts');
const { Engine } = await load<typeof import('../../main/engine/engine')>('main/engine/engine.ts');
const { GpuflowService } = await load<typeof import('../../main/api/service')>('main/api/service.ts');
const { openStore } = await load<typeof import('../../main/store')>('main/store/index.ts');

const discovery = {
  gpus:
    WORKERS === 'fake'
      ? Array.from({ length: GPUS }, (_, i) => ({ index: i, uuid: `GPU-fake-bench-${i}`, name: 'fake GPU (CPU kernels)', memoryTotalMiB: 4096, memoryUsedMiB: 0, utilizationPct: 0, pciBusId: '', driverVersion: '' }))
      : [],
  cpu: { cores: cpus().length, model: cpus()[0]?.model ?? '', memoryTotalBytes: 8 << 30, memoryFreeBytes: 4 << 30 },
};
const backends: Array<'cuda' | 'js'> = WORKERS === 'fake' ? ['cuda', 'js'] : ['js'];
const launcher = forkLauncher();
// --workers cpu: --gpus CPU workers of one thread each (the js kernels).
const engine = new Engine(discovery, { launcher, useGpus: WORKERS === 'fake', maxGpus: GPUS, cpuWorkers: WORKERS === 'cpu' ? GPUS : 0, virtualGpus: WORKERS === 'virtual' ? GPUS : 0, backends, threadsPerCpuWorker: 1 });
await engine.start();
const dbDir = mkdtempSync(path.join(tmpdir(), 'gpuflow-warm-run-'));
const store = openStore(path.join(dbDir, 'gpuflow.db'));
const svc = new GpuflowService(engine, store, { launcher, virtualGpus: WORKERS === 'virtual' ? GPUS : 0, backends });

const doc = JSON.parse(readFileSync(path.join(ROOT, 'examples', WORKFLOW === 'groupby' ? 'dataframe-groupby.json' : 'seed-benchmark.json'), 'utf8')) as unknown;
const params: Record<string, number> = WORKFLOW === 'groupby' ? { rows_per_partition: Number(opt('rows', '500')) } : { N: Number(opt('n', '800')), chunks: Number(opt('chunk', '50')) };

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
type Task = Extract<EngineEvent, { type: 'task' }>;

interface Run {
  api: number;
  dispatch: number;
  chunks: number;
  tail: number;
  collect: number;
  record: number;
  total: number;
  engine: number;
  mainCpu: number;
  digest: string | null;
}

/** One run through the service, its phases from main's clock and the engine's events (Date.now). */
async function once(): Promise<Run> {
  const events: EngineEvent[] = [];
  const unsubscribe = engine.bus.subscribe((e) => events.push(e));
  const c0 = cpuMs();
  const p0 = performance.now();
  const started = await svc.runAsync(doc, { params });
  const p1 = performance.now();
  const t1 = Date.now();
  const ended = await started.handle.result;
  const t2 = Date.now();
  const p2 = performance.now();
  const r = await started.done;
  const p3 = performance.now();
  const cpu = cpuMs() - c0;
  unsubscribe();
  if (r.status !== 'finished') throw new Error(`run ${r.status}: ${r.error}`);
  const tasks = events.filter((e): e is Task => e.type === 'task' && e.runId === started.runId);
  const sent = events.find((e) => e.type === 'task-state' && e.to === 'running' && e.runId === started.runId);
  const t0 = t2 - ended.stats.durationMs;
  const finalDone = Math.max(...tasks.map((e) => e.t));
  // The chunk tasks: those no other task of the run waits on the output of a combine of (no '-combine' / aggregate).
  const chunkDone = Math.max(...tasks.filter((e) => !/combine|aggregate|final/.test(e.op)).map((e) => e.t));
  return {
    api: +(p1 - p0).toFixed(2),
    dispatch: (sent?.t ?? t1) - t0,
    chunks: chunkDone - (sent?.t ?? t0),
    tail: finalDone - chunkDone,
    collect: t2 - finalDone,
    record: +(p3 - p2).toFixed(2),
    total: +(p3 - p0).toFixed(2),
    engine: ended.stats.durationMs,
    mainCpu: +cpu.toFixed(2),
    digest: r.digest,
  };
}

const runs: Run[] = [];
try {
  for (let i = 0; i < WARM + RUNS; i++) {
    const r = await once();
    if (i >= WARM) runs.push(r);
  }
} finally {
  await svc.close();
  rmSync(dbDir, { recursive: true, force: true });
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const keys = ['api', 'dispatch', 'chunks', 'tail', 'collect', 'record', 'total', 'engine', 'mainCpu'] as const;
const medians = Object.fromEntries(keys.map((k) => [k, +median(runs.map((r) => r[k])).toFixed(2)]));
console.log(
  JSON.stringify({
    bench: 'engine/warm-run',
    root: ROOT,
    workers: WORKERS,
    gpus: GPUS,
    workflow: WORKFLOW,
    params,
    runs: runs.length,
    loadavg: loadavg().map((x) => +x.toFixed(2)),
    digests: [...new Set(runs.map((r) => r.digest))],
    medians,
    each: runs,
  }),
);
process.exit(0);
