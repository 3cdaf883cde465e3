// The phases of each engine run in a bench/scaling/device.sh result (scaling.jsonl: one JSON line a
// run, with its start-up trace as [process, label, ms since the run's spawn]), medians per label:
//   start      run-start -> run-first-execute (main built the scheduler and sent the first task)
//   firstDone  -> the first task a worker finished (worker-task-1-*-done: a fresh worker's first
//              kernels)
//   lastDone   -> run-tasks-done (every task's done received: the programs and the combine tree)
//   end        -> run-end (the outputs collected: a fetch per output before small outputs came
//              with their done, none since)
//   tail       the last chunk program done (worker-task-*-program-done) -> run-end: the combine
//              tree's levels after it and the end; workers trace their first 24 tasks only, so
//              this holds where each ran no more (the sliced seeds: about 21 a GPU on four)
// and the engine run (stats.durationMs) and peer transfers, and per worker (the slowest of them):
//   late       run-start -> the last worker-ready (contexts ready after the run started)
//   warm       worker-residency -> worker-device-warm-* (the device warm-up, worker/device-warmup.ts)
//   firstProgram  a worker's first task arrived -> its first chunk program done (16 run at once,
//              so this is about 16 programs' time on the GPU plus what the first ones pay once)
//   busy       a worker's first task arrived -> its last chunk program done (traced up to its
//              24th task: the sliced seeds on four GPUs run about 18 a worker)
// For `ONLY=inline` calls, the labels ab-inline0-* (fetched, as before) against ab-inline1-* (sent
// with their done); for `ONLY=warmdev`, ab-warmdev0-* (no device warm-up), ab-warmdev1-* (before
// ready, the default), ab-warmdevafter-* (right after ready) and ab-warmdeveager-* (none, every
// kernel loaded with the context: CUDA_MODULE_LOADING=EAGER).
//
//   node bench/scaling/phases.mjs scaling.jsonl [label-prefix]
import { readFileSync } from 'node:fs';

const [file, prefix = ''] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/scaling/phases.mjs scaling.jsonl [label-prefix]\n');
  process.exit(2);
}
const runs = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.startsWith('{'))
  .map((l) => JSON.parse(l))
  .filter((r) => typeof r.label === 'string' && r.label.startsWith(prefix) && Array.isArray(r.trace) && r.durationMs !== undefined);

/** The phases of one run from its trace; null where a milestone is missing (an older build). */
function phases(r) {
  const main = r.trace.find((t) => t[1] === 'run-start')?.[0];
  const at = (label) => r.trace.find((t) => t[0] === main && t[1] === label)?.[2];
  const firstDone = Math.min(...r.trace.filter((t) => /^worker-task-1-.*-done$/.test(t[1])).map((t) => t[2]));
  const [s, e, d, n] = [at('run-start'), at('run-first-execute'), at('run-tasks-done'), at('run-end')];
  const gap = (a, b) => (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) ? null : b - a);
  const lastProgram = Math.max(...r.trace.filter((t) => /^worker-task-\d+-program-done$/.test(t[1])).map((t) => t[2]));
  // Per worker process: the slowest one's figure (null where no worker has the milestones).
  const workers = [...new Set(r.trace.filter((t) => t[1] === 'worker-ready').map((t) => t[0]))];
  const of = (w, re) => r.trace.find((t) => t[0] === w && re.test(t[1]))?.[2];
  const slowest = (f) => {
    const v = workers.map(f).filter((x) => x !== null);
    return v.length ? Math.max(...v) : null;
  };
  const late = slowest((w) => gap(s, of(w, /^worker-ready$/)));
  const warm = slowest((w) => gap(of(w, /^worker-residency$/), of(w, /^worker-device-warm-\d+$/)));
  const programsDone = (w) => r.trace.filter((t) => t[0] === w && /^worker-task-\d+-program-done$/.test(t[1])).map((t) => t[2]);
  const firstProgram = slowest((w) => (programsDone(w).length ? gap(of(w, /^worker-first-task$/), Math.min(...programsDone(w))) : null));
  const busy = slowest((w) => (programsDone(w).length ? gap(of(w, /^worker-first-task$/), Math.max(...programsDone(w))) : null));
  return { durationMs: r.durationMs, start: gap(s, e), firstDone: gap(e, firstDone), lastDone: gap(firstDone, d), end: gap(d, n), tail: gap(lastProgram, n), late, warm, firstProgram, busy, transfers: r.stats?.transfers?.count ?? null };
}

const median = (xs) => {
  const v = xs.filter((x) => x !== null).sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : null;
};
const byLabel = new Map();
for (const r of runs) byLabel.set(`${r.label} ${r.gpus ?? ''}`, [...(byLabel.get(`${r.label} ${r.gpus ?? ''}`) ?? []), phases(r)]);
for (const [label, ps] of byLabel) {
  const m = Object.fromEntries(['durationMs', 'start', 'firstDone', 'lastDone', 'end', 'tail', 'late', 'warm', 'firstProgram', 'busy', 'transfers'].map((k) => [k, median(ps.map((p) => p[k]))]));
  console.log(JSON.stringify({ label: label.trim(), runs: ps.length, ...m, durations: ps.map((p) => p.durationMs) }));
}
