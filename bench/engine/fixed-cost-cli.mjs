// The fixed part of a `gpuflow run` (issue 30), in fresh processes as the GPU machine's bench runs
// them: the seed workflow on tiny chunks with its reduction's fan-in at 4 (the three combine
// levels of the 2 TB seed on four H100s), each run timed by bench/engine-gpu/timed-run.mjs with
// the start-up trace on, alternating GPUFLOW_INLINE_VALUES=1 (small outputs sent with their
// `done`, the default) and =0 (fetched from their peers, as before). Configurations: 4 and 1 GPU
// workers whose CUDA calls the CPU kernels answer (GPUFLOW_BENCH_FAKE_CUDA, fake nvidia-smi:
// the GPUs' placement in contiguous shares), 4 and 1 virtual GPUs, and a one-task graph on 4
// fake GPUs (N = chunks: nothing to combine). Per run, from main's trace (ms):
//   start     run-start -> run-first-execute (the scheduler built, the first task sent)
//   tasks     -> run-tasks-done (every task's done received)
//   end       -> run-end (the outputs collected, the run's record)
// and stats.durationMs, the engine run. Medians per configuration and mode, the ratio of `on`
// against `off` (alternated in one process).
//
//   node bench/engine/fixed-cost-cli.mjs [--reps 7] [--label x] -> bench/results/fixed-cost-cli-<label>.json
// Needs the bundles (node bin/build-bundles.mjs).
import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const opt = (name, d) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : d);
const REPS = Number(opt('reps', '7'));
const LABEL = opt('label', 'run');

const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-fixed-'));
const wf = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));
wf.nodes.find((n) => n.id === 'total').params.split_every = 4;
const wfPath = path.join(dir, 'seed-fanin4.json');
writeFileSync(wfPath, JSON.stringify(wf));
// A fake nvidia-smi listing n GPUs (as test/integration/fake-gpus.ts).
function smi(n) {
  const p = path.join(dir, `nvidia-smi-${n}`);
  const line = (i) => `${i}, GPU-1111111${i}-2222-3333-4444-555555555555, Test GPU, 81559, 0, 0, 00000000:1${i}:00.0, 580.1`;
  writeFileSync(p, `#!/bin/sh\n${Array.from({ length: n }, (_, i) => `echo "${line(i)}"`).join('\n')}\n`);
  chmodSync(p, 0o755);
  return p;
}
const fake = (n) => ({ GPUFLOW_NVIDIA_SMI: smi(n), GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_START_ON_FIRST: '0' });
const noGpu = { GPUFLOW_NVIDIA_SMI: '/nonexistent/nvidia-smi' };
const SEED = ['--param', 'N=800', '--param', 'chunks=50'];
const configs = [
  { name: 'fake-gpu-4', env: fake(4), args: [...SEED, '--cpu-workers', '0'] },
  { name: 'fake-gpu-1', env: fake(1), args: [...SEED, '--cpu-workers', '0'] },
  { name: 'virtual-gpu-4', env: noGpu, args: [...SEED, '--virtual-gpus', '4', '--cpu-workers', '0'] },
  { name: 'virtual-gpu-1', env: noGpu, args: [...SEED, '--virtual-gpus', '1', '--cpu-workers', '0'] },
  { name: 'one-task-fake-gpu-4', env: fake(4), args: ['--param', 'N=50', '--param', 'chunks=50', '--cpu-workers', '0'] },
];
const MODES = ['off', 'on'];

function once(c, mode) {
  const env = { ...process.env, ...c.env, GPUFLOW_TRACE_START: '1', GPUFLOW_INLINE_VALUES: mode === 'on' ? '1' : '0' };
  const out = execFileSync(process.execPath, ['bench/engine-gpu/timed-run.mjs', '{}', '--timeout', '60', '--', 'bin/gpuflow.mjs', 'run', wfPath, '--json', '--no-store', '--no-attach', ...c.args], { env, encoding: 'utf8' });
  const r = JSON.parse(out);
  if (r.status !== 'finished') throw new Error(`${c.name} ${mode}: ${r.status} ${r.error}`);
  // Main's own trace lines: the process named by the run-start line.
  const main = r.trace.find((t) => t[1] === 'run-start')[0];
  const at = (label) => r.trace.find((t) => t[0] === main && t[1] === label)?.[2];
  return {
    durationMs: r.durationMs,
    start: at('run-first-execute') - at('run-start'),
    tasks: at('run-tasks-done') - at('run-first-execute'),
    end: at('run-end') - at('run-tasks-done'),
    transfers: r.stats.transfers.count,
    taskCount: r.stats.tasks,
    digest: r.digest,
  };
}

const runs = new Map();
for (let rep = 0; rep <= REPS; rep++) {
  for (const c of configs) {
    for (const mode of MODES) {
      const r = once(c, mode);
      if (rep === 0) continue; // this process's and the page cache's warm-up
      const k = `${c.name}/${mode}`;
      runs.set(k, [...(runs.get(k) ?? []), r]);
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = [];
for (const c of configs) {
  for (const mode of MODES) {
    const rs = runs.get(`${c.name}/${mode}`);
    const m = (f) => median(rs.map(f));
    results.push({
      config: c.name,
      mode,
      tasks: rs[0].taskCount,
      digests: [...new Set(rs.map((x) => x.digest))],
      durationMs: m((x) => x.durationMs),
      start: m((x) => x.start),
      tasksPhase: m((x) => x.tasks),
      end: m((x) => x.end),
      transfers: m((x) => x.transfers),
      durations: rs.map((x) => x.durationMs),
    });
  }
}
for (const r of results) {
  const off = results.find((x) => x.config === r.config && x.mode === 'off');
  r.durationVsOff = +(r.durationMs / off.durationMs).toFixed(3);
}
const doc = {
  bench: 'engine/fixed-cost-cli',
  commit: execSync('git rev-parse --short HEAD').toString().trim(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg() },
  reps: REPS,
  results,
};
writeFileSync(`bench/results/fixed-cost-cli-${LABEL}.json`, JSON.stringify(doc, null, 2) + '\n');
console.log(JSON.stringify(doc, null, 2));
