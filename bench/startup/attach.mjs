#!/usr/bin/env node
// An attached `gpuflow run` (issue 30, the warm pool): where its process wall goes before the run
// starts on serve. Starts one `gpuflow serve` (1 virtual GPU, native-cpu, a temporary store) per
// checkout: this one and, with --base <dir>, another (its out/cli built: the "before"), each
// serve from its own checkout so serve's side is compared too; then runs the seed workflow
// (N=1000, chunks=500 unless --n / --chunks) attached to its own checkout's serve, alternating the
// two checkouts in every round so drift in the machine's load hits both alike. Each run's start
// trace (GPUFLOW_TRACE_START=1, common/start-trace.ts) gives: node and the CLI bundle (`cli`), the
// connection (`warm-pool-found` to `attach-connected`), the run started on serve
// (`attach-run-started`), the first request sent (`attach-requested`, absent in older builds; up
// to 151ade9 the stream's upgrade and the cluster query, since then the one POST
// /api/runs/attached whose answer streams the run, so `attach-connected` comes after the start), the POST to the run's start (`attach` to `attach-run-started`: serve's
// validate, compile and record), and the exit after the command's end (`cli-done` to `exit`); the
// process wall is timed here, and the wall above the engine run is the wall less the run's
// `durationMs` (--json). serve's own trace lines, where its build has them, split its side
// (`api-run-read` to `run-compiled`). Every run's digest must be the first run's. Medians over
// rounds, and after/before ratios of the same rounds.
//
//   node bench/startup/attach.mjs [--rounds 9] [--n 1000 --chunks 500] [--base /path/to/old/checkout [--base-label <commit>]] [--out file.json]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { arg, commit, machine, median, requireBundles, root } from './common.mjs';

const rounds = Number(arg('--rounds', '9'));
const n = arg('--n', '1000');
const chunks = arg('--chunks', '500');
const base = arg('--base', null);
const sized = n === '1000' && chunks === '500' ? '' : `-n${n}`;
const out = arg('--out', path.join(root, 'bench', 'results', `startup-attach${sized}-${hostname()}-${commit}.json`));
for (const dir of [root, base].filter(Boolean)) requireBundles(dir);

const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-attach-bench-'));
const POOL = ['--virtual-gpus', '1', '--cpu-workers', '0', '--backend', 'native-cpu'];
const baseEnv = { ...process.env, GPUFLOW_NVIDIA_SMI: '/nonexistent', GPUFLOW_DEVICES: '' };
const TOKEN = 'attach-bench-token-0123456789';

/** serve's trace lines, as [label, epoch ms], by checkout: a run's are those between its start and end. */
const serveTrace = {};

/** A serve from `checkout` on a store of its own (the run attaches to the serve beside its database). */
async function startServe(name, checkout) {
  const env = { ...baseEnv, GPUFLOW_DB: path.join(dir, name, 'gpuflow.db'), GPUFLOW_TRACE_START: '1', GPUFLOW_TRACE_NAME: 'serve' };
  mkdirSync(path.join(dir, name));
  const serve = spawn(process.execPath, [path.join(checkout, 'bin', 'gpuflow.mjs'), 'serve', '--port', '0', `--token=${TOKEN}`, ...POOL], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  serveTrace[name] = [];
  let rest = '';
  serve.stderr.on('data', (d) => {
    const lines = (rest + d.toString()).split('\n');
    rest = lines.pop();
    for (const l of lines) {
      const m = /^gpuflow-trace serve (\S+) [\d.]+ ([\d.]+)$/.exec(l);
      if (m) serveTrace[name].push([m[1], Number(m[2])]);
      else if (!l.startsWith('gpuflow-trace ')) process.stderr.write(`${l}\n`);
    }
  });
  await new Promise((resolve, reject) => {
    let text = '';
    serve.stdout.on('data', (d) => {
      text += d.toString();
      if (/gpuflow serve: http/.test(text)) resolve();
    });
    serve.once('exit', (code) => reject(new Error(`serve from ${checkout} exited (${code}) before it listened`)));
  });
  return { serve, env };
}

const cases = { after: root, ...(base ? { before: base } : {}) };
const serves = {};
for (const [name, checkout] of Object.entries(cases)) serves[name] = await startServe(name, checkout);
const steps = ['cli', 'firstRequest', 'connection', 'postToStarted', 'serveCompile', 'runStarted', 'exitAfterDone', 'wall', 'engineRun', 'aboveRun'];
const data = Object.fromEntries(Object.keys(cases).map((k) => [k, Object.fromEntries(steps.map((s) => [s, []]))]));
const loads = [];
let digest = null;

function once(name, checkout) {
  const t0 = process.hrtime.bigint();
  const e0 = Date.now();
  const p = spawnSync(process.execPath, [path.join(checkout, 'bin', 'gpuflow.mjs'), 'run', 'examples/seed-benchmark.json', '--param', `N=${n}`, '--param', `chunks=${chunks}`, '--json', ...POOL], {
    cwd: root,
    env: { ...serves[name].env, GPUFLOW_TRACE_START: '1', GPUFLOW_TRACE_NAME: 'cli' },
    encoding: 'utf8',
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (p.status !== 0) throw new Error(`${checkout}: exit ${p.status}\n${p.stderr}`);
  const at = {};
  for (const m of p.stderr.matchAll(/^gpuflow-trace \S+ (\S+) ([\d.]+) /gm)) at[m[1]] ??= Number(m[2]);
  if (at['attach-run-started'] === undefined) throw new Error(`${checkout}: the run did not attach\n${p.stderr}`);
  const r = JSON.parse(p.stdout);
  digest ??= r.digest;
  if (r.digest !== digest) throw new Error(`${checkout}: digest ${r.digest}, the first run's ${digest}`);
  return {
    at,
    e0,
    e1: Date.now(),
    engineRun: r.stats.durationMs,
    cli: at.cli,
    // A build before the trace point has none (null: left out of its median).
    firstRequest: at['attach-requested'] ?? null,
    connection: at['attach-connected'] - at['warm-pool-found'],
    postToStarted: at['attach-run-started'] - at.attach,
    runStarted: at['attach-run-started'],
    exitAfterDone: at.exit - at['cli-done'],
    wall,
    aboveRun: wall - r.stats.durationMs,
  };
}

/** serve's side of the run timed from `e0` to `e1`: its read of the POST to the graph compiled (null where its build has no such lines). */
function serveSide(name, e0, e1) {
  const lines = serveTrace[name].filter(([, t]) => t >= e0 && t <= e1);
  const t = (label) => lines.find(([l]) => l === label)?.[1];
  const read = t('api-run-read');
  const compiled = t('run-compiled');
  return read !== undefined && compiled !== undefined ? compiled - read : null;
}

try {
  for (let r = -1; r < rounds; r++) {
    loads.push(loadavg()[0]);
    const measured = [];
    for (const [name, checkout] of Object.entries(cases)) measured.push([name, once(name, checkout)]);
    // serve's trace lines of these runs arrive on its pipe, read while this script waits.
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const [name, m] of measured) {
      m.serveCompile = serveSide(name, m.e0, m.e1);
      // round -1 warms the file cache and each serve's first run (its first compile)
      if (r >= 0) for (const s of steps) data[name][s].push(m[s]);
    }
    process.stderr.write(`round ${r + 1}/${rounds}\n`);
  }
} finally {
  for (const { serve } of Object.values(serves)) {
    serve.kill('SIGTERM');
    await new Promise((resolve) => serve.once('exit', resolve));
  }
  rmSync(dir, { recursive: true, force: true });
}

const medianMs = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Object.fromEntries(steps.map((s) => [s, median(v[s]) === null ? null : Number(median(v[s]).toFixed(1))]))]));
const result = {
  bench: 'startup-attach',
  commit,
  base: base ? arg('--base-label', base) : null,
  ...machine(rounds, loads),
  workload: `gpuflow run examples/seed-benchmark.json --param N=${n} --param chunks=${chunks} attached to a gpuflow serve from the same checkout (1 virtual GPU, native-cpu)`,
  digest,
  steps: {
    cli: 'ms from the process start to the CLI bundle loaded (trace `cli`)',
    firstRequest: 'ms from the process start to its first request to serve sent (trace `attach-requested`: the stream upgrade and cluster query up to 151ade9, the one POST /api/runs/attached after)',
    connection: 'ms from the serve file found to serve answering (`attach-connected`: the event stream open and the cluster answered up to 151ade9; after, the POST answer head, sent once the run started)',
    postToStarted: 'ms from the run POSTed (trace `attach`) to serve answering it started (`attach-run-started`)',
    serveCompile: "ms on serve from the POST's body read to the graph compiled (serve's trace `api-run-read` to `run-compiled`; null before those lines)",
    runStarted: 'ms from the process start to the run started on serve',
    exitAfterDone: 'ms from the command done to the process exit',
    wall: 'process wall, ms, timed by this script',
    engineRun: "the run's durationMs (--json)",
    aboveRun: 'process wall less the engine run, ms',
  },
  medianMs,
  ...(base ? { medianRatioAfterOverBefore: Object.fromEntries(steps.filter((s) => median(data.before[s]) !== null).map((s) => [s, Number((median(data.after[s]) / median(data.before[s])).toFixed(3))])) } : {}),
  ms: data,
};
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
process.stdout.write(JSON.stringify({ medianMs, ratio: result.medianRatioAfterOverBefore, loadavg1: result.loadavg1 }, null, 2) + '\n');
