/**
 * The fixed part of a run (issue 30: about 0.12 s of each four-GPU seed run, which the goals
 * leave no room for), measured where kernels do not hide it: the seed workflow
 * (examples/seed-benchmark.json) on tiny chunks through the real engine in this process, with
 * GPU workers whose CUDA calls the CPU kernels answer (GPUFLOW_BENCH_FAKE_CUDA=1, as
 * bench/engine/overhead.ts), so the placement, shares and device-resident store are the GPU's.
 * The reduction's fan-in is 4 (`split_every`), so the four-GPU graph has the combine tree of the
 * 2 TB seed run on four H100s: three levels above the partials (there 72 -> 9 -> 2 -> 1, here
 * 32 -> 8 -> 2 -> 1). One engine per GPU count, warmed by a first run; then runs alternate
 * between the modes named in --modes (GPUFLOW_INLINE_VALUES read per run by main: `on` the
 * default, `off` the fetches of before), so both see the same machine load.
 *
 * Per run, from the engine's own events (main's clock; the workers' start and end of each task
 * on the same machine's clock):
 *   toFirstDispatch  run start -> the first task sent to a worker
 *   programs         -> the last chunk program's done received by main
 *   combineTail      -> the final combine's done received by main (the tree's levels after it)
 *   toEnd            -> the run's result (the output collected, the run's end)
 *   levels[i]        per combine level: main received its last input -> the first of its tasks
 *                    started on a worker (dispatch and input fetches), and its tasks' own run time
 *   mainCpuUsPerTask main's CPU time during the run, per task
 *
 *   npx tsx bench/engine/fixed-cost.ts [--reps 9] [--gpus 4,1] [--modes on,off] [--label x]
 *     -> bench/results/fixed-cost-<label>.json
 */
import { execSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { EngineEvent } from '../../common/events';

process.env.GPUFLOW_BENCH_FAKE_CUDA = '1';
process.env.GPUFLOW_NVIDIA_SMI = '/nonexistent/nvidia-smi';

const { forkLauncher } = await import('../../main/cluster/fork-launcher');
const { Engine } = await import('../../main/engine/engine');
const { validateWorkflow } = await import('../../main/engine/validate');

const args = process.argv.slice(2);
const opt = (name: string, d: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : d);
const REPS = Number(opt('reps', '9'));
const GPUS = opt('gpus', '4,1').split(',').map(Number);
const MODES = opt('modes', 'on,off').split(',');
const LABEL = opt('label', 'run');
const N = Number(opt('n', '800'));
const CHUNK = Number(opt('chunk', '50'));
const WARM = Number(opt('warm', '3'));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mainCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function discovery(gpus: number) {
  return {
    gpus: Array.from({ length: gpus }, (_, i) => ({ index: i, uuid: `GPU-fake-bench-${i}`, name: 'fake GPU (CPU kernels)', memoryTotalMiB: 4096, memoryUsedMiB: 0, utilizationPct: 0, pciBusId: '', driverVersion: '' })),
    cpu: { cores: cpus().length, model: cpus()[0]?.model ?? '', memoryTotalBytes: 8 << 30, memoryFreeBytes: 4 << 30 },
  };
}

const doc = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')) as { nodes: Array<{ id: string; params: Record<string, unknown> }> };
doc.nodes.find((n) => n.id === 'total')!.params.split_every = 4;

interface RunBreakdown {
  totalMs: number;
  toFirstDispatch: number;
  programs: number;
  combineTail: number;
  toEnd: number;
  levels: Array<{ dispatch: number; run: number }>;
  mainCpuUsPerTask: number;
  transfers: number;
  tasks: number;
  value: string;
}

/** The breakdown of one run from its events (t: main's Date.now at emission). */
function breakdown(events: EngineEvent[], t0: number, t1: number, cpuMs: number, transfers: number, tasks: number, value: string): RunBreakdown {
  const dispatched = events.filter((e) => e.type === 'task-state' && e.to === 'running');
  const done = events.filter((e): e is Extract<EngineEvent, { type: 'task' }> => e.type === 'task');
  const programs = done.filter((e) => e.op !== 'combine' && !e.op.endsWith('-final'));
  const combines = done.filter((e) => e.op === 'combine' || e.op.endsWith('-final'));
  const lastProgram = Math.max(...programs.map((e) => e.t));
  const final = combines.find((e) => e.op.endsWith('-final'))!;
  // Combine levels from the keys ("...-combine<depth>..."); the final one is the last level.
  const depthOf = (k: string) => Number(/-combine(\d+)/.exec(k)?.[1] ?? 0);
  const depths = [...new Set(combines.map((e) => depthOf(e.key)))].sort((a, b) => a - b);
  let inputsDone = lastProgram;
  const levels = depths.map((d) => {
    const mine = combines.filter((e) => depthOf(e.key) === d);
    const firstStart = Math.min(...mine.map((e) => e.start));
    const lastEnd = Math.max(...mine.map((e) => e.t));
    const level = { dispatch: firstStart - inputsDone, run: Math.max(...mine.map((e) => e.end - e.start)) };
    inputsDone = lastEnd;
    return level;
  });
  return {
    totalMs: t1 - t0,
    toFirstDispatch: (dispatched[0]?.t ?? t0) - t0,
    programs: lastProgram - t0,
    combineTail: final.t - lastProgram,
    toEnd: t1 - final.t,
    levels,
    mainCpuUsPerTask: +((cpuMs * 1000) / tasks).toFixed(1),
    transfers,
    tasks,
    value,
  };
}

/** One run on `engine` in `mode`, broken down. */
async function runOnce(engine: InstanceType<typeof Engine>, wf: ReturnType<typeof validateWorkflow>, mode: string): Promise<RunBreakdown> {
  process.env.GPUFLOW_INLINE_VALUES = mode === 'off' ? '0' : '1';
  const compiled = await engine.compileAsync(wf);
  const events: EngineEvent[] = [];
  const unsubscribe = engine.bus.subscribe((e) => events.push(e));
  const c0 = mainCpuMs();
  const t0 = Date.now();
  const res = await engine.run(wf, undefined, { compiled }).result;
  const t1 = Date.now();
  const cpu = mainCpuMs() - c0;
  unsubscribe();
  if (res.status !== 'finished') throw new Error(`run ${res.status}: ${res.error}`);
  const v = res.results.total;
  return breakdown(events, t0, t1, cpu, res.stats.transfers.count, res.stats.tasks, JSON.stringify('value' in v ? v.value : v));
}

/**
 * Per repetition and mode a fresh engine (fresh worker processes, as every `gpuflow run` has):
 * its first run is `first` (the workers' JIT, first peer connections), then WARM runs on it.
 * Repetition 0 warms this process up and is left out.
 */
async function measure(gpus: number) {
  const wf = validateWorkflow(doc, { N, chunks: CHUNK, dtype: 'float64' });
  const first = new Map<string, RunBreakdown[]>(MODES.map((m) => [m, []]));
  const warm = new Map<string, RunBreakdown[]>(MODES.map((m) => [m, []]));
  for (let r = 0; r <= REPS; r++) {
    for (const mode of MODES) {
      const engine = new Engine(discovery(gpus), { launcher: forkLauncher(), useGpus: true, maxGpus: gpus, cpuWorkers: 0, virtualGpus: 0, backends: ['cuda', 'js'] });
      await engine.start();
      try {
        const runs = [];
        for (let i = 0; i <= WARM; i++) runs.push(await runOnce(engine, wf, mode));
        if (r === 0) continue;
        first.get(mode)!.push(runs[0]);
        warm.get(mode)!.push(...runs.slice(1));
      } finally {
        await engine.shutdown();
      }
    }
  }
  const summary = (rs: RunBreakdown[]) => {
    const med = (f: (x: RunBreakdown) => number) => +median(rs.map(f)).toFixed(1);
    return {
      totalMs: med((x) => x.totalMs),
      toFirstDispatch: med((x) => x.toFirstDispatch),
      programs: med((x) => x.programs),
      combineTail: med((x) => x.combineTail),
      toEnd: med((x) => x.toEnd),
      levels: rs[0].levels.map((_, i) => ({ dispatch: med((x) => x.levels[i].dispatch), run: med((x) => x.levels[i].run) })),
      mainCpuUsPerTask: med((x) => x.mainCpuUsPerTask),
      transfers: med((x) => x.transfers),
      runs: rs.map((x) => x.totalMs),
    };
  };
  return MODES.map((mode) => ({
    gpus,
    mode,
    tasks: first.get(mode)![0].tasks,
    values: [...new Set([...first.get(mode)!, ...warm.get(mode)!].map((x) => x.value))],
    first: summary(first.get(mode)!),
    warm: summary(warm.get(mode)!),
  }));
}

const results: Array<Awaited<ReturnType<typeof measure>>[number]> = [];
for (const g of GPUS) results.push(...(await measure(g)));
// Ratio of each mode's median run against the first mode's, per GPU count (same process, alternated).
const withRatio = results.map((r) => {
  const base = results.find((x) => x.gpus === r.gpus && x.mode === MODES[0])!;
  return { ...r, firstVsFirstMode: +(r.first.totalMs / base.first.totalMs).toFixed(3), warmVsFirstMode: +(r.warm.totalMs / base.warm.totalMs).toFixed(3) };
});
const out = {
  bench: 'engine/fixed-cost',
  commit: execSync('git rev-parse --short HEAD').toString().trim(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg() },
  n: N,
  chunk: CHUNK,
  splitEvery: 4,
  reps: REPS,
  results: withRatio,
};
mkdirSync('bench/results', { recursive: true });
writeFileSync(`bench/results/fixed-cost-${LABEL}.json`, JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
