/**
 * `gpuflow show <run-id>` and `gpuflow benchmarks [<id>]` (also `gpuflow history --benchmarks`):
 * what the store holds about one run (its workflow, status, target, digest, stats and results) and
 * the stored benchmarks, as text or `--json`. Read-only: no engine, no workers.
 */
import type { BenchmarkRecord, EventAggregate, JsonValue, RunRecord } from '../../common/store-types';
import type { WorkflowDoc } from '../../common/workflow';
import { defaultDbPath, openStore } from '../store';
import { intOption, UsageError, type Parsed } from './args';
import { benchTable } from './bench';
import { daskRecordOf, daskTargetText, type DaskRecord } from '../dask/record';

/** Opens the store as history sees it: runs whose process died are shown interrupted, not running. */
export function openCliStore(opts: Parsed['values']) {
  const store = openStore(opts.db ?? process.env.GPUFLOW_DB ?? defaultDbPath());
  store.markInterrupted();
  return store;
}

export interface RunShow {
  id: number;
  uuid: string;
  status: RunRecord['status'];
  started: number;
  ended: number | null;
  durationMs: number | null;
  replayOf: number | null;
  error: string | null;
  workflow: { hash: string; name: string; doc: WorkflowDoc | null };
  params: Record<string, JsonValue>;
  seeds: JsonValue;
  /** Where it ran: the machine, and the workers and backends it had (and any left out). */
  target: { machine: string; host: string; pid: number; devices: JsonValue; backends: JsonValue; dask: DaskRecord | null };
  digest: string | null;
  /** From the run's recorded task events (per op and worker, kept past the event cap). */
  stats: { tasks: number; busyMs: number; workers: { worker: string; tasks: number; busyMs: number }[]; ops: { op: string; tasks: number; msTotal: number; msMax: number }[]; transfers: { count: number; bytes: number; ms: number }; events: { total: number; dropped: number } };
  results: JsonValue | null;
}

export function runShow(run: RunRecord, doc: WorkflowDoc | null, aggregates: readonly EventAggregate[]): RunShow {
  const workers = new Map<string, { worker: string; tasks: number; busyMs: number }>();
  const ops = new Map<string, { op: string; tasks: number; msTotal: number; msMax: number }>();
  const transfers = { count: 0, bytes: 0, ms: 0 };
  for (const a of aggregates) {
    // Transfers are recorded as events of op 'transfer' on the receiving worker (service.ts).
    if (a.op === 'transfer') {
      transfers.count += a.tasks;
      transfers.bytes += a.bytesTotal;
      transfers.ms += a.msTotal;
      continue;
    }
    if (a.tasks === 0) continue;
    const w = workers.get(a.worker) ?? { worker: a.worker, tasks: 0, busyMs: 0 };
    w.tasks += a.tasks;
    w.busyMs += a.msTotal;
    workers.set(a.worker, w);
    const o = ops.get(a.op) ?? { op: a.op, tasks: 0, msTotal: 0, msMax: 0 };
    o.tasks += a.tasks;
    o.msTotal += a.msTotal;
    o.msMax = Math.max(o.msMax, a.msMax);
    ops.set(a.op, o);
  }
  const byName = <T extends { tasks: number }>(m: Map<string, T>, key: (x: T) => string) => [...m.values()].sort((x, y) => key(x).localeCompare(key(y), undefined, { numeric: true }));
  const ws = byName(workers, (w) => w.worker);
  return {
    id: run.id,
    uuid: run.uuid,
    status: run.status,
    started: run.started,
    ended: run.ended,
    durationMs: run.ended === null ? null : run.ended - run.started,
    replayOf: run.replayOf,
    error: run.error,
    workflow: { hash: run.workflowHash, name: run.workflowName, doc },
    params: run.params,
    seeds: run.seeds,
    target: { machine: run.machine, host: run.host, pid: run.pid, devices: run.devices, backends: run.backends, dask: daskRecordOf(run.target) },
    digest: run.resultDigest,
    stats: {
      tasks: ws.reduce((s, w) => s + w.tasks, 0),
      busyMs: ws.reduce((s, w) => s + w.busyMs, 0),
      workers: ws,
      ops: byName(ops, (o) => o.op),
      transfers,
      events: { total: run.eventsTotal, dropped: run.eventsDropped },
    },
    results: run.results,
  };
}

const short = (v: unknown, max = 100) => {
  const s = JSON.stringify(v) ?? 'null';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

function showText(r: RunShow): string {
  const devices = Array.isArray(r.target.devices) ? (r.target.devices as { id?: string; leftOut?: string }[]) : [];
  const lines = [
    `run ${r.id} (${r.uuid})${r.replayOf !== null ? `, replay of run ${r.replayOf}` : ''}`,
    `workflow  ${r.workflow.name || '(unnamed)'} ${r.workflow.hash.slice(0, 12)}${r.workflow.doc ? '' : ' (version missing from the store)'}`,
    `status    ${r.status}${r.error ? `: ${r.error}` : ''}`,
    `started   ${new Date(r.started).toISOString()}${r.durationMs !== null ? `, ${(r.durationMs / 1000).toFixed(2)} s` : ''}`,
    `params    ${short(r.params)}`,
    r.target.dask
      ? `target    ${daskTargetText(r.target.dask)}; from ${r.target.host}`
      : `target    ${r.target.host} (machine ${r.target.machine.slice(0, 12)}); workers ${devices.map((d) => `${d.id ?? '?'}${d.leftOut ? ' (left out)' : ''}`).join(', ') || '-'}`,
    `digest    ${r.digest ?? '-'}`,
    `stats     ${r.stats.tasks} tasks, ${(r.stats.busyMs / 1000).toFixed(2)} s busy; ${r.stats.workers.map((w) => `${w.worker}: ${w.tasks}`).join(', ') || 'no task events'}; ${r.stats.transfers.count} transfers (${r.stats.transfers.bytes} bytes); ${r.stats.events.total} events${r.stats.events.dropped ? ` (${r.stats.events.dropped} past the cap)` : ''}`,
    'results',
  ];
  const results = r.results && typeof r.results === 'object' && !Array.isArray(r.results) ? Object.entries(r.results) : [];
  for (const [k, v] of results) lines.push(`  ${k} = ${short(v)}`);
  if (results.length === 0) lines.push('  (none)');
  return lines.join('\n') + '\n';
}

/** `gpuflow show <run-id>`: one stored run. */
export async function showCommand(positionals: string[], opts: Parsed['values']): Promise<number> {
  const id = intOption(positionals[0], 'run-id', 1);
  if (id === undefined || positionals.length > 1) throw new UsageError('usage: gpuflow show <run-id> [--json]');
  const store = openCliStore(opts);
  try {
    const run = store.getRun(id);
    if (!run) throw new UsageError(`no run ${id} in ${opts.db ?? process.env.GPUFLOW_DB ?? 'the store'}`);
    const r = runShow(run, store.getWorkflowVersion(run.workflowHash)?.doc ?? null, store.eventAggregates(id));
    process.stdout.write(opts.json ? JSON.stringify(r, null, 2) + '\n' : showText(r));
    return 0;
  } finally {
    store.close();
  }
}

function benchLine(b: BenchmarkRecord): string {
  const med = b.configs.map((c) => `${c.name}${c.virtual ? ' (v)' : ''} ${c.available && c.median !== null ? `${(c.median / 1000).toFixed(3)} s` : '-'}`).join(', ');
  return `${String(b.id).padStart(5)}  ${new Date(b.created).toISOString()}  ${(b.workflowName || b.workflowHash.slice(0, 12)).padEnd(24)} ${b.repetitions}x  ${med}  digests ${b.digestsAgree ? 'agree' : 'DISAGREE'}`;
}

/** `gpuflow benchmarks [<id>]` (or `history --benchmarks`): the stored benchmarks, newest first, or one. */
export async function benchmarksCommand(positionals: string[], opts: Parsed['values']): Promise<number> {
  if (positionals.length > 1) throw new UsageError('usage: gpuflow benchmarks [<benchmark-id>] [--workflow NAME|HASH] [--limit N] [--json]');
  const store = openCliStore(opts);
  try {
    if (positionals[0] !== undefined) {
      const id = intOption(positionals[0], 'benchmark-id', 1)!;
      const b = store.getBenchmark(id);
      if (!b) throw new UsageError(`no benchmark ${id} in ${opts.db ?? process.env.GPUFLOW_DB ?? 'the store'}`);
      process.stdout.write(opts.json ? JSON.stringify(b, null, 2) + '\n' : `benchmark ${b.id} of ${b.workflowName || b.workflowHash.slice(0, 12)}, ${new Date(b.created).toISOString()}, ${b.repetitions} repetitions (${b.warmup} warm-up), params ${short(b.params)}\n${benchTable(b)}\n`);
      return 0;
    }
    const limit = intOption(opts.limit, 'limit', 1) ?? 50;
    const wf = opts.workflow;
    // Filtered here, not in SQL: by name or hash prefix, as history's --workflow.
    const all = store.listBenchmarks(undefined, wf === undefined ? limit : Number.MAX_SAFE_INTEGER);
    const list = (wf === undefined ? all : all.filter((b) => b.workflowName === wf || b.workflowHash.startsWith(wf))).slice(0, limit);
    if (opts.json) process.stdout.write(JSON.stringify(list, null, 2) + '\n');
    else if (list.length === 0) process.stdout.write('no benchmarks yet\n');
    else for (const b of list) process.stdout.write(benchLine(b) + '\n');
    return 0;
  } finally {
    store.close();
  }
}
