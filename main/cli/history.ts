/** `gpuflow history` and `gpuflow replay <run-id>`: the store's runs, and exact re-runs of them. */
import type { RunSortKey, RunStatus } from '../../common/store-types';
import { RUN_STATUSES } from '../../common/store-types';
import { exportRuns, importExportFile, writeExportFile } from '../store';
import { intOption, UsageError, type Parsed } from './args';
import { startService } from './cluster';
import { benchmarksCommand, openCliStore } from './records';
import { targetLabel } from '../dask/record';

const SORT_KEYS: RunSortKey[] = ['started', 'duration', 'status', 'name', 'id'];

/** `gpuflow export <run-id>... --out FILE`: runs with their workflow versions embedded. */
export async function exportCommand(positionals: string[], opts: Parsed['values']): Promise<number> {
  const ids = positionals.map((p) => intOption(p, 'run-id', 1)!);
  if (ids.length === 0 || !opts.out) throw new UsageError('usage: gpuflow export <run-id>... --out FILE');
  const store = openCliStore(opts);
  try {
    writeExportFile(opts.out, exportRuns(store, ids));
    process.stdout.write(`exported ${ids.length} run(s) to ${opts.out}\n`);
    return 0;
  } finally {
    store.close();
  }
}

/** `gpuflow import FILE`: adds the file's workflows and runs; importing twice adds nothing. */
export async function importCommand(positionals: string[], opts: Parsed['values']): Promise<number> {
  if (!positionals[0]) throw new UsageError('usage: gpuflow import FILE');
  const store = openCliStore(opts);
  try {
    const report = importExportFile(store, positionals[0]);
    process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + '\n' : `imported ${JSON.stringify(report)}\n`);
    return 0;
  } finally {
    store.close();
  }
}

export async function historyCommand(positionals: string[], opts: Parsed['values']): Promise<number> {
  if (opts.benchmarks) return benchmarksCommand(positionals, opts);
  const store = openCliStore(opts);
  try {
    const status = opts.status;
    if (status !== undefined && !(RUN_STATUSES as readonly string[]).includes(status)) throw new UsageError(`--status must be one of ${RUN_STATUSES.join(', ')}`);
    const sort = opts.sort;
    if (sort !== undefined && !SORT_KEYS.includes(sort as RunSortKey)) throw new UsageError(`--sort must be one of ${SORT_KEYS.join(', ')}`);
    const runs = store.listRuns({ status: status as RunStatus | undefined, workflow: opts.workflow, limit: intOption(opts.limit, 'limit', 1) ?? 50, sort: sort as RunSortKey | undefined });
    if (opts.json) {
      process.stdout.write(JSON.stringify(runs, null, 2) + '\n');
      return 0;
    }
    if (runs.length === 0) process.stdout.write('no runs yet\n');
    for (const r of runs) {
      const dur = r.durationMs === null ? '-' : `${(r.durationMs / 1000).toFixed(2)} s`;
      process.stdout.write(`${String(r.id).padStart(5)}  ${new Date(r.started).toISOString()}  ${r.status.padEnd(11)} ${dur.padStart(9)}  ${(r.workflowName || r.workflowHash.slice(0, 12)).padEnd(24)} ${targetLabel(r.target).padEnd(22)} ${r.resultDigest?.slice(0, 12) ?? '-'}${r.replayOf ? `  (replay of ${r.replayOf})` : ''}\n`);
    }
    return 0;
  } finally {
    store.close();
  }
}

export async function replayCommand(positionals: string[], opts: Parsed['values']): Promise<number> {
  const id = intOption(positionals[0], 'run-id', 1);
  if (id === undefined) throw new UsageError('usage: gpuflow replay <run-id>');
  const svc = await startService(opts);
  try {
    const store = svc.store!;
    const original = store.getRun(id);
    if (!original) throw new UsageError(`no run ${id} in ${opts.db ?? 'the store'}`);
    const version = store.getWorkflowVersion(original.workflowHash);
    if (!version) throw new UsageError(`run ${id}'s workflow version ${original.workflowHash.slice(0, 12)} is missing from the store`);
    const started = await svc.runAsync(version.doc, { replayOf: id });
    const r = await started.done;
    const match = r.status === 'finished' && original.resultDigest !== null && r.digest === original.resultDigest;
    const report = { original: id, replay: r.storeId, status: r.status, error: r.error, originalDigest: original.resultDigest, replayDigest: r.digest, match };
    if (opts.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    else process.stdout.write(replayLine(id, r.storeId, r.status, r.error, original.resultDigest, r.digest, match));
    return match ? 0 : 1;
  } finally {
    await svc.close();
  }
}

const digestText = (d: string | null) => d?.slice(0, 12) ?? 'none';

/** The replay's one line: a failure says why; a missing digest reads 'none', never 'undefined'. */
export function replayLine(original: number, replay: number | null, status: string, error: string | undefined, was: string | null, now: string | null, match: boolean): string {
  const as = replay !== null ? ` as run ${replay}` : '';
  if (status !== 'finished') return `replay of run ${original}${as}: ${status}${error ? `: ${error}` : ''}; no digest to compare (the original's ${digestText(was)})\n`;
  return `replay of run ${original}${as}: ${status}; digest ${match ? 'matches' : 'DIFFERS'} (${digestText(was)} vs ${digestText(now)})\n`;
}
