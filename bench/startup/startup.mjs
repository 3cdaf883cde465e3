#!/usr/bin/env node
// Start-up of a trivial `gpuflow run` (examples/seed-benchmark.json, N=1000, a temporary store),
// with one CPU worker and with 1 CPU + 3 virtual GPUs, from the prebuilt bundles (out/cli) and
// from the TypeScript sources under tsx (GPUFLOW_NO_BUNDLE=1, the baseline), beside `node -e 0`
// timed in the same rounds. Each round runs every command once, in turn, so drift in the machine's
// load hits all of them alike; the medians over rounds are what to quote (issue 20, "Fast start").
//
//   node bench/startup/startup.mjs [--rounds 7] [--out bench/results/startup-<host>-<commit>.json]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { arg, commit, machine, median, requireBundles, root } from './common.mjs';

const rounds = Number(arg('--rounds', '7'));
const out = arg('--out', path.join(root, 'bench', 'results', `startup-${hostname()}-${commit}.json`));
requireBundles(root);

const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-startup-'));
const run = ['bin/gpuflow.mjs', 'run', 'examples/seed-benchmark.json', '--param', 'N=1000'];
const env = { ...process.env, GPUFLOW_NVIDIA_SMI: '/nonexistent', GPUFLOW_DEVICES: '', GPUFLOW_DB: path.join(dir, 'gpuflow.db') };
const cases = {
  'node -e 0': { args: ['-e', '0'], env },
  'bundle, 1 CPU': { args: run, env },
  'bundle, 1 CPU + 3 virtual GPUs': { args: [...run, '--virtual-gpus', '3'], env },
  'tsx (baseline), 1 CPU': { args: run, env: { ...env, GPUFLOW_NO_BUNDLE: '1' } },
  'tsx (baseline), 1 CPU + 3 virtual GPUs': { args: [...run, '--virtual-gpus', '3'], env: { ...env, GPUFLOW_NO_BUNDLE: '1' } },
};

// GNU time gives each command's CPU seconds (user + sys, its workers included: they are its
// reaped children), which a loaded machine inflates far less than wall time.
const TIME = '/usr/bin/time';
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const cpu = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const loads = [];
for (let r = -1; r < rounds; r++) {
  loads.push(loadavg()[0]);
  for (const [name, c] of Object.entries(cases)) {
    const t0 = process.hrtime.bigint();
    const p = spawnSync(TIME, ['-f', 'gpuflow-startup-cpu %U %S', process.execPath, ...c.args], { cwd: root, env: c.env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (p.status !== 0) throw new Error(`${name} exited ${p.status}: ${p.stderr}`);
    const m = /gpuflow-startup-cpu ([\d.]+) ([\d.]+)/.exec(p.stderr);
    if (r >= 0) {
      // round -1 warms the file cache
      times[name].push(s);
      cpu[name].push(m ? Number(m[1]) + Number(m[2]) : NaN);
    }
  }
  process.stderr.write(`round ${r + 1}/${rounds}\n`);
}
rmSync(dir, { recursive: true, force: true });

const med = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
const medCpu = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, median(v)]));
const node0 = med['node -e 0'];
const result = {
  bench: 'startup',
  commit,
  ...machine(rounds, loads),
  workload: 'gpuflow run examples/seed-benchmark.json --param N=1000 (default backend, store in a temp dir)',
  goals: { 'bundle, 1 CPU': 0.6, 'bundle, 1 CPU + 3 virtual GPUs': 1.0 },
  medianSeconds: med,
  medianOverNodeE0: Object.fromEntries(Object.entries(med).map(([k, v]) => [k, v / node0])),
  medianCpuSeconds: medCpu,
  seconds: times,
  cpuSeconds: cpu,
};
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
process.stdout.write(JSON.stringify({ medianSeconds: med, medianCpuSeconds: medCpu, loadavg1: result.loadavg1 }, null, 2) + '\n');
