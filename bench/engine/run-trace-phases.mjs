// A warm run's phases from the main process's start-up trace (GPUFLOW_TRACE_START=1: lines
// `gpuflow-trace <who> <label> <ms> <epoch ms>`, common/start-trace.ts), one JSON line per run, for a
// `gpuflow serve` whose runs are handed to it one after another (bench/scaling/device.sh warm with
// WARM_TRACE=1) or bench/engine/warm-run.ts. Lines of other processes (the workers) are left out:
// only `who` values that write `run-start` count. Phases in ms:
//   request   api-run-read -> run-start: the request read, validation, compile (a hit when kept), the record
//   dispatch  run-start -> run-first-execute
//   tasks     -> run-tasks-done: every task's done received
//   read      -> run-results-read: the outputs collected (the table preview)
//   end       -> run-end
//   digest    -> run-digest: the service's digest of the result
//   stored    -> run-stored: the run's events and its end written to the store
//   engine    run-start -> run-end (what stats.durationMs measures)
//
//   node bench/engine/run-trace-phases.mjs <stderr file>... [--label x]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const label = args.includes('--label') ? args[args.indexOf('--label') + 1] : undefined;
const files = args.filter((a, i) => a !== '--label' && args[i - 1] !== '--label');
if (files.length === 0) throw new Error('usage: node bench/engine/run-trace-phases.mjs <stderr file>... [--label x]');

const LINE = /^gpuflow-trace (\S+) (\S+) ([\d.]+) ([\d.]+)$/;
const marks = files
  .flatMap((f) => readFileSync(f, 'utf8').split('\n'))
  .map((l) => LINE.exec(l.trim()))
  .filter((m) => m !== null)
  .map((m) => ({ who: m[1], label: m[2], epoch: Number(m[4]) }))
  .sort((a, b) => a.epoch - b.epoch);
const mains = new Set(marks.filter((m) => m.label === 'run-start').map((m) => m.who));

const ORDER = ['run-start', 'run-first-execute', 'run-tasks-done', 'run-results-read', 'run-end', 'run-digest', 'run-stored'];
const runs = [];
let cur = null;
let request = null;
for (const m of marks) {
  if (!mains.has(m.who)) continue;
  if (m.label === 'api-run-read') request = m.epoch;
  if (m.label === 'run-start') {
    cur = { request, at: {} };
    request = null;
    runs.push(cur);
  }
  if (cur && ORDER.includes(m.label) && cur.at[m.label] === undefined) cur.at[m.label] = m.epoch;
}
const span = (at, a, b) => (at[a] !== undefined && at[b] !== undefined ? +(at[b] - at[a]).toFixed(1) : null);
for (const [i, r] of runs.entries()) {
  const a = r.at;
  const phases = {
    request: r.request === null ? null : +(a['run-start'] - r.request).toFixed(1),
    dispatch: span(a, 'run-start', 'run-first-execute'),
    tasks: span(a, 'run-first-execute', 'run-tasks-done'),
    read: span(a, 'run-tasks-done', 'run-results-read'),
    end: span(a, 'run-results-read', 'run-end'),
    digest: span(a, 'run-end', 'run-digest'),
    stored: span(a, 'run-digest', 'run-stored'),
    engine: span(a, 'run-start', 'run-end'),
  };
  console.log(JSON.stringify({ kind: 'run-trace-phases', ...(label ? { label } : {}), run: i + 1, ...phases }));
}
