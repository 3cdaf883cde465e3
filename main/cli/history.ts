/** `gpuflow history` and `gpuflow replay <run-id>`: the store's runs, and exact re-runs of them. */
import type { RunStatus } from '../../common/store-types';
import { RUN_STATUSES } from '../../common/store-types';
import { defaultDbPath, openStore } from '../store';
import { intOption, UsageError, type Parsed } from './args';
import { startService } from './cluster';

export async function historyCommand(_positionals: string[], opts: Parsed['values']): Promise<number> {
  const store = openStore(opts.db ?? process.env.GPUFLOW_DB ?? defaultDbPath());
  try {
    const status = opts.status;
    if (status !== undefined && !(RUN_STATUSES as readonly string[]).includes(status)) throw new UsageError(`--status must be one of ${RUN_STATUSES.join(', ')}`);
    const runs = store.listRuns({ status: status as RunStatus | undefined, workflow: opts.workflow, limit: intOption(opts.limit, 'limit', 1) ?? 50 });
    if (opts.json) {
      process.stdout.write(JSON.stringify(runs, null, 2) + '\n');
      return 0;
    }
    if (runs.length === 0) process.stdout.write('no runs yet\n');
    for (const r of runs) {
      const dur = r.durationMs === null ? '-' : `${(r.durationMs / 1000).toFixed(2)} s`;
      process.stdout.write(`${String(r.id).padStart(5)}  ${new Date(r.started).toISOString()}  ${r.status.padEnd(11)} ${dur.padStart(9)}  ${(r.workflowName || r.workflowHash.slice(0, 12)).padEnd(24)} ${r.resultDigest?.slice(0, 12) ?? ''}${r.replayOf ? `  (replay of ${r.replayOf})` : ''}\n`);
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
    const started = svc.run(version.doc, { replayOf: id });
    const r = await started.done;
    const match = r.status === 'finished' && original.resultDigest !== null && r.digest === original.resultDigest;
    const report = { original: id, replay: r.storeId, status: r.status, error: r.error, originalDigest: original.resultDigest, replayDigest: r.digest, match };
    if (opts.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    else process.stdout.write(`replay of run ${id} as run ${r.storeId}: ${r.status}; digest ${match ? 'matches' : 'DIFFERS'} (${original.resultDigest?.slice(0, 12)} vs ${r.digest.slice(0, 12)})\n`);
    return match ? 0 : 1;
  } finally {
    await svc.close();
  }
}
