#!/usr/bin/env node
// An attached `gpuflow run` (issue 30, the warm pool): where its process wall goes before the run
// starts on serve. Starts one `gpuflow serve` (1 virtual GPU, native-cpu, a temporary store) from
// this checkout, then runs the seed workflow (N=1000) attached to it from this checkout's bundles
// and, with --base <dir>, from another checkout's (its out/cli built: the "before"), alternating
// the two in every round so drift in the machine's load hits both alike. Each run's start trace
// (GPUFLOW_TRACE_START=1, common/start-trace.ts) gives: node and the CLI bundle (`cli`), the
// connection (`warm-pool-found` to `attach-connected`), the run started on serve
// (`attach-run-started`), the stream's upgrade and the cluster query sent (`attach-requested`,
// absent in older builds), and the exit after the command's end (`cli-done` to `exit`); the
// process wall is timed here. Medians over rounds, and after/before ratios of the same rounds.
//
//   node bench/startup/attach.mjs [--rounds 9] [--base /path/to/old/checkout [--base-label <commit>]] [--out file.json]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { arg, commit, machine, median, requireBundles, root } from './common.mjs';

const rounds = Number(arg('--rounds', '9'));
const base = arg('--base', null);
const out = arg('--out', path.join(root, 'bench', 'results', `startup-attach-${hostname()}-${commit}.json`));
for (const dir of [root, base].filter(Boolean)) requireBundles(dir);

const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-attach-bench-'));
const POOL = ['--virtual-gpus', '1', '--cpu-workers', '0', '--backend', 'native-cpu'];
const env = { ...process.env, GPUFLOW_NVIDIA_SMI: '/nonexistent', GPUFLOW_DEVICES: '', GPUFLOW_DB: path.join(dir, 'gpuflow.db') };
const TOKEN = 'attach-bench-token-0123456789';

const serve = spawn(process.execPath, ['bin/gpuflow.mjs', 'serve', '--port', '0', `--token=${TOKEN}`, ...POOL], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((resolve, reject) => {
  let text = '';
  serve.stdout.on('data', (d) => {
    text += d.toString();
    if (/gpuflow serve: http/.test(text)) resolve();
  });
  serve.once('exit', (code) => reject(new Error(`serve exited (${code}) before it listened`)));
});

const cases = { after: root, ...(base ? { before: base } : {}) };
const steps = ['cli', 'firstRequest', 'connection', 'runStarted', 'exitAfterDone', 'wall'];
const data = Object.fromEntries(Object.keys(cases).map((k) => [k, Object.fromEntries(steps.map((s) => [s, []]))]));
const loads = [];

function once(checkout) {
  const t0 = process.hrtime.bigint();
  const p = spawnSync(process.execPath, [path.join(checkout, 'bin', 'gpuflow.mjs'), 'run', 'examples/seed-benchmark.json', '--param', 'N=1000', '--param', 'chunks=500', ...POOL], {
    cwd: root,
    env: { ...env, GPUFLOW_TRACE_START: '1' },
    encoding: 'utf8',
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (p.status !== 0) throw new Error(`${checkout}: exit ${p.status}\n${p.stderr}`);
  const at = {};
  for (const m of p.stderr.matchAll(/^gpuflow-trace \S+ (\S+) ([\d.]+) /gm)) at[m[1]] ??= Number(m[2]);
  if (at['attach-run-started'] === undefined) throw new Error(`${checkout}: the run did not attach\n${p.stderr}`);
  return {
    cli: at.cli,
    // A build before the trace point has none (null: left out of its median).
    firstRequest: at['attach-requested'] ?? null,
    connection: at['attach-connected'] - at['warm-pool-found'],
    runStarted: at['attach-run-started'],
    exitAfterDone: at.exit - at['cli-done'],
    wall,
  };
}

try {
  for (let r = -1; r < rounds; r++) {
    loads.push(loadavg()[0]);
    for (const [name, checkout] of Object.entries(cases)) {
      const m = once(checkout);
      // round -1 warms the file cache and serve's first run
      if (r >= 0) for (const s of steps) data[name][s].push(m[s]);
    }
    process.stderr.write(`round ${r + 1}/${rounds}\n`);
  }
} finally {
  serve.kill('SIGTERM');
  await new Promise((resolve) => serve.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}

const medianMs = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Object.fromEntries(steps.map((s) => [s, median(v[s]) === null ? null : Number(median(v[s]).toFixed(1))]))]));
const result = {
  bench: 'startup-attach',
  commit,
  base: base ? arg('--base-label', base) : null,
  ...machine(rounds, loads),
  workload: 'gpuflow run examples/seed-benchmark.json --param N=1000 --param chunks=500 attached to a gpuflow serve (1 virtual GPU, native-cpu)',
  steps: {
    cli: 'ms from the process start to the CLI bundle loaded (trace `cli`)',
    firstRequest: 'ms from the process start to the stream upgrade and cluster query sent (trace `attach-requested`)',
    connection: 'ms from the serve file found to the event stream open and the cluster answered',
    runStarted: 'ms from the process start to the run started on serve',
    exitAfterDone: 'ms from the command done to the process exit',
    wall: 'process wall, ms, timed by this script',
  },
  medianMs,
  ...(base ? { medianRatioAfterOverBefore: Object.fromEntries(steps.filter((s) => median(data.before[s]) !== null).map((s) => [s, Number((median(data.after[s]) / median(data.before[s])).toFixed(3))])) } : {}),
  ms: data,
};
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
process.stdout.write(JSON.stringify({ medianMs, ratio: result.medianRatioAfterOverBefore, loadavg1: result.loadavg1 }, null, 2) + '\n');
