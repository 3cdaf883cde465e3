// One fresh `gpuflow run` timed as a whole process, as the GPU machine's bench scripts record it
// (bench/engine-gpu/device.sh, startup-device.sh, bench/native/linalg-device.sh): prints one JSON
// line with the given fields, the exit code, the process wall, the engine run, the wall above it,
// the result's values, its stats and the start-up trace (GPUFLOW_TRACE_START=1 lines, in ms from
// this process's spawn of it).
//
// With --stderr, the record also keeps the last 1500 characters of the run's stderr (a Dask run's
// progress lines and notices), whether or not it succeeded.
//
//   node bench/engine-gpu/timed-run.mjs '{"kind":"engine","rep":1}' [--timeout S] [--stderr] -- <cli> run <args...>
import { spawn } from 'node:child_process';

const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
if (sep < 1) {
  process.stderr.write("usage: timed-run.mjs '<json fields>' [--timeout S] -- <cli.mjs> run <args...>\n");
  process.exit(2);
}
const fields = JSON.parse(argv[0]);
const t = argv.indexOf('--timeout');
const timeoutMs = t > 0 && t < sep ? Number(argv[t + 1]) * 1000 : 120_000;
const keepStderr = argv.slice(0, sep).includes('--stderr');
const [cli, ...args] = argv.slice(sep + 1);

const startEpoch = performance.timeOrigin + performance.now();
const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
let stdout = '';
let stderr = '';
child.stdout.on('data', (d) => (stdout += d));
child.stderr.on('data', (d) => (stderr += d));
const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
// The wall ends when the process exits; its output is read to the end once the pipes close, which
// can be later (workers it leaves to finish hold stderr a moment).
let processSeconds = NaN;
child.on('exit', () => (processSeconds = (performance.timeOrigin + performance.now() - startEpoch) / 1000));
child.on('close', (code, signal) => {
  clearTimeout(timer);
  let r = {};
  let error;
  try {
    r = JSON.parse(stdout);
  } catch {
    error = stderr.slice(-800);
  }
  const trace = stderr
    .split('\n')
    .filter((l) => l.startsWith('gpuflow-trace '))
    .map((l) => {
      const p = l.split(' ');
      return [p[1], p[2], Math.round(Number(p[4]) - startEpoch)];
    });
  const v = r.results ?? {};
  const s = v.s?.data;
  const durationMs = r.stats?.durationMs;
  const values = { total: v.total?.value, u_sq: v.u_sq?.value, vt_sq: v.vt_sq?.value, s0: s?.[0], sLast: s?.[s.length - 1] };
  const record = {
    ...fields,
    rc: code ?? signal,
    processSeconds,
    durationMs,
    aboveSeconds: durationMs === undefined ? null : processSeconds - durationMs / 1000,
    digest: r.digest ?? null,
    status: r.status ?? (signal ? `killed (${signal}) after ${timeoutMs / 1000} s` : null),
    value: values.total,
    values,
    // The run's result digest (tables included): one answer for any GPU count.
    digest: r.digest ?? null,
    stats: r.stats,
    // Which worker ran how many tasks (gpuflow run --json), e.g. a search's trials per GPU.
    tasksPerWorker: r.tasksPerWorker ?? null,
    trace,
    error: error ?? null,
    ...(keepStderr ? { stderrTail: stderr.split('\n').filter((l) => !l.startsWith('gpuflow-trace ')).join('\n').slice(-1500) } : {}),
  };
  console.log(JSON.stringify(record));
});
