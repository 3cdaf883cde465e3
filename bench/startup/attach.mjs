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
// rounds, after/before ratios of the same rounds, and the median of the paired differences.
//
// Each command runs under a small /usr/bin/python3 wrapper that times it (posix_spawn to wait4) and
// reads its CPU time (user + system) from wait4's rusage: on this shared 2-core machine the CPU time
// moves far less with the other builds' load than the wall does. The order alternates (after,
// before; then before, after), and each command starts --gap ms (250) after the one before it:
// without the pause, the second command of a pair started while the first one's serve was still
// busy with the run it had just answered, and ran 20-90 ms slower to its `cli` at load 6-10 here.
// `split` gives the path step by step from the trace (cli to warm-pool-found, to workflow-read, ...,
// and `exit>end`: the wall less the exit trace's time, that is node's teardown plus its exec and
// library loading before its clock starts), and `node` times node alone on an empty module (its
// start to the module's first line, its wall and CPU).
//
//   node bench/startup/attach.mjs [--rounds 9] [--gap 250] [--n 1000 --chunks 500] [--base /path/to/old/checkout [--base-label <commit>]] [--out file.json]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { arg, commit, machine, median, requireBundles, root } from './common.mjs';

const rounds = Number(arg('--rounds', '9'));
const n = arg('--n', '1000');
const chunks = arg('--chunks', '500');
const base = arg('--base', null);
const gapMs = Number(arg('--gap', '250'));
const pause = new Int32Array(new SharedArrayBuffer(4));
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
  const serve = spawn(process.execPath, [path.join(checkout, 'bin', 'gpuflow.mjs'), 'serve', '--port', '0', `--token=${TOKEN}`, ...POOL], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
const steps = ['cli', 'firstRequest', 'connection', 'postToStarted', 'serveCompile', 'runStarted', 'exitAfterDone', 'wall', 'engineRun', 'aboveRun', 'cpu'];
/** The trace's labels in the order an attached run passes them; `split` is the ms between each and the next. */
const PATH = [
  'cli',
  'warm-pool-found',
  'workflow-read',
  'attach',
  'attach-requested',
  'attach-connected',
  'attach-run-started',
  'attach-result',
  'cli-done',
  'exit',
];
// serve's side of `attach-requested>attach-connected` (its trace lines against the command's, by epoch).
const splitSteps = [
  ...PATH.slice(1).map((l, i) => `${PATH[i]}>${l}`),
  'exit>end',
  'attach-requested>serve-read',
  'serve-read>serve-launched',
  'serve-launched>attach-connected',
];
const data = Object.fromEntries(Object.keys(cases).map((k) => [k, Object.fromEntries(steps.map((s) => [s, []]))]));
const split = Object.fromEntries(Object.keys(cases).map((k) => [k, Object.fromEntries(splitSteps.map((s) => [s, []]))]));
const nodeAlone = { firstLine: [], wall: [], cpu: [] };

/** Runs `argv` under the wait4 wrapper: its result, wall and CPU ms. */
const TIMED = [
  'import os, sys, time',
  't0 = time.perf_counter()',
  'pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ)',
  '_, status, ru = os.wait4(pid, 0)',
  'sys.stderr.write("gpuflow-bench-rusage %.3f %.3f\\n" % ((time.perf_counter() - t0) * 1000, (ru.ru_utime + ru.ru_stime) * 1000))',
  'sys.exit(os.waitstatus_to_exitcode(status))',
].join('\n');
function timed(argv, opts) {
  const p = spawnSync('/usr/bin/python3', ['-c', TIMED, ...argv], { ...opts, encoding: 'utf8' });
  const m = /^gpuflow-bench-rusage ([\d.]+) ([\d.]+)$/m.exec(p.stderr ?? '');
  if (!m) throw new Error(`the timing wrapper failed (exit ${p.status}): ${p.stderr}`);
  return { ...p, wall: Number(m[1]), cpu: Number(m[2]) };
}

/** node alone: an empty module that prints its first line's time since the process started. */
function nodeOnce() {
  const p = timed([process.execPath, '--input-type=module', '-e', 'process.stdout.write(String(performance.now()))'], {});
  nodeAlone.firstLine.push(Number(p.stdout));
  nodeAlone.wall.push(p.wall);
  nodeAlone.cpu.push(p.cpu);
}
const loads = [];
let digest = null;

function once(name, checkout) {
  const e0 = Date.now();
  const p = timed(
    [
      process.execPath,
      path.join(checkout, 'bin', 'gpuflow.mjs'),
      'run',
      'examples/seed-benchmark.json',
      '--param',
      `N=${n}`,
      '--param',
      `chunks=${chunks}`,
      '--json',
      ...POOL,
    ],
    {
      cwd: root,
      env: { ...serves[name].env, GPUFLOW_TRACE_START: '1', GPUFLOW_TRACE_NAME: 'cli' },
    },
  );
  const wall = p.wall;
  if (p.status !== 0) throw new Error(`${checkout}: exit ${p.status}\n${p.stderr}`);
  const at = {};
  const epoch = {};
  for (const m of p.stderr.matchAll(/^gpuflow-trace \S+ (\S+) ([\d.]+) ([\d.]+)$/gm)) {
    at[m[1]] ??= Number(m[2]);
    epoch[m[1]] ??= Number(m[3]);
  }
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
    cpu: p.cpu,
    epoch,
    split: Object.fromEntries(
      PATH.slice(1)
        .map((l, i) => [`${PATH[i]}>${l}`, at[l] - at[PATH[i]]])
        .concat([['exit>end', wall - at.exit]]),
    ),
  };
}

/** The median of after - before, round by round (null where either is missing). */
function paired(after, before) {
  const m = median(after.map((a, i) => (a === null || before[i] === null ? null : a - before[i])));
  return m === null ? null : Number(m.toFixed(1));
}

/**
 * serve's side of the run timed from `e0` to `e1` (epoch ms of its trace lines): `compile`, its read
 * of the POST to the graph compiled, and the command's wait for serve's answer split at serve's
 * body read and its run's launch (serve's epoch against the command's; NaN where a line is missing).
 */
function serveSide(name, m) {
  const lines = serveTrace[name].filter(([, t]) => t >= m.e0 && t <= m.e1);
  const t = (label) => lines.find(([l]) => l === label)?.[1] ?? NaN;
  const [read, compiled, launched] = [t('api-run-read'), t('run-compiled'), t('run-launched')];
  return {
    compile: Number.isFinite(compiled - read) ? compiled - read : null,
    split: {
      'attach-requested>serve-read': read - m.epoch['attach-requested'],
      'serve-read>serve-launched': launched - read,
      'serve-launched>attach-connected': m.epoch['attach-connected'] - launched,
    },
  };
}

try {
  for (let r = -1; r < rounds; r++) {
    loads.push(loadavg()[0]);
    const measured = [];
    // The order alternates round by round (the first of a pair runs slower on a loaded machine).
    const order = r % 2 ? Object.entries(cases).reverse() : Object.entries(cases);
    for (const [name, checkout] of order) {
      // serve's work after a run (its record, its events) would otherwise run beside the next command's start.
      Atomics.wait(pause, 0, 0, gapMs);
      measured.push([name, once(name, checkout)]);
    }
    nodeOnce();
    // serve's trace lines of these runs arrive on its pipe, read while this script waits.
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const [name, m] of measured) {
      const side = serveSide(name, m);
      m.serveCompile = side.compile;
      Object.assign(m.split, side.split);
      // round -1 warms the file cache and each serve's first run (its first compile)
      if (r >= 0) for (const s of steps) data[name][s].push(m[s]);
      if (r >= 0) for (const s of splitSteps) split[name][s].push(Number.isFinite(m.split[s]) ? m.split[s] : null);
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

const medianMs = Object.fromEntries(
  Object.entries(data).map(([k, v]) => [k, Object.fromEntries(steps.map((s) => [s, median(v[s]) === null ? null : Number(median(v[s]).toFixed(1))]))]),
);
const result = {
  bench: 'startup-attach',
  commit,
  base: base ? arg('--base-label', base) : null,
  ...machine(rounds, loads),
  workload: `gpuflow run examples/seed-benchmark.json --param N=${n} --param chunks=${chunks} attached to a gpuflow serve from the same checkout (1 virtual GPU, native-cpu)`,
  digest,
  steps: {
    cli: 'ms from the process start to the CLI bundle loaded (trace `cli`)',
    firstRequest:
      'ms from the process start to its first request to serve sent (trace `attach-requested`: the stream upgrade and cluster query up to 151ade9, the one POST /api/runs/attached after)',
    connection:
      'ms from the serve file found to serve answering (`attach-connected`: the event stream open and the cluster answered up to 151ade9; after, the POST answer head, sent once the run started)',
    postToStarted: 'ms from the run POSTed (trace `attach`) to serve answering it started (`attach-run-started`)',
    serveCompile: "ms on serve from the POST's body read to the graph compiled (serve's trace `api-run-read` to `run-compiled`; null before those lines)",
    runStarted: 'ms from the process start to the run started on serve',
    exitAfterDone: 'ms from the command done to the process exit',
    wall: 'process wall, ms, timed by this script',
    engineRun: "the run's durationMs (--json)",
    aboveRun: 'process wall less the engine run, ms',
    cpu: "the command's CPU time, user + system, ms (wait4's rusage)",
  },
  splitSteps:
    "ms between consecutive trace labels of the command (`exit>end`: the wall less the exit trace's time: node's teardown, and its exec and library loading before its clock starts)",
  nodeAlone: 'node on an empty module: firstLine, ms from its start to the first line; wall and cpu as for the command',
  medianMs,
  medianSplitMs: Object.fromEntries(
    Object.entries(split).map(([k, v]) => [k, Object.fromEntries(splitSteps.map((s) => [s, median(v[s]) === null ? null : Number(median(v[s]).toFixed(1))]))]),
  ),
  nodeAloneMedianMs: Object.fromEntries(Object.entries(nodeAlone).map(([k, v]) => [k, Number(median(v).toFixed(1))])),
  ...(base
    ? {
        medianRatioAfterOverBefore: Object.fromEntries(
          steps.filter((s) => median(data.before[s]) !== null).map((s) => [s, Number((median(data.after[s]) / median(data.before[s])).toFixed(3))]),
        ),
        medianPairedDifferenceMs: Object.fromEntries(steps.map((s) => [s, paired(data.after[s], data.before[s])])),
      }
    : {}),
  ms: data,
  splitMs: split,
  nodeAloneMs: nodeAlone,
};
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
process.stdout.write(
  JSON.stringify(
    { medianMs, paired: result.medianPairedDifferenceMs, split: result.medianSplitMs, node: result.nodeAloneMedianMs, loadavg1: result.loadavg1 },
    null,
    2,
  ) + '\n',
);
