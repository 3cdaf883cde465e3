/** `gpuflow bench <workflow.json>`: the four-configuration benchmark, saved in the store. */
import type { BenchmarkRecord } from '../../common/store-types';
import { intOption, paramOverrides, type Parsed } from './args';
import { startService } from './cluster';
import { readWorkflowFile } from './run';

export function benchTable(b: BenchmarkRecord): string {
  const base = b.configs.find((c) => c.name === '1 CPU core')?.median ?? null;
  const rows = b.configs.map((c) => {
    const label = `${c.name}${c.virtual ? ' (virtual)' : ''}`;
    if (!c.available) return `${label.padEnd(24)} unavailable: ${c.unavailableReason ?? ''}`;
    const med = c.median ?? NaN;
    const speedup = base && c.median ? `${(base / c.median).toFixed(2)}x` : '-';
    return `${label.padEnd(24)} ${c.workers} workers  median ${(med / 1000).toFixed(3)} s  spread ${((c.spread ?? 0) * 100).toFixed(1)}%  speedup ${speedup.padStart(7)}  digest ${c.digest?.slice(0, 12) ?? '-'}`;
  });
  return [...rows, `digests ${b.digestsAgree ? 'agree' : 'DISAGREE'} (to ${b.toleranceDigits} significant digits); benchmark ${b.id}`].join('\n');
}

export async function benchCommand(positionals: string[], opts: Parsed['values']): Promise<number> {
  const doc = await readWorkflowFile(positionals[0]);
  const svc = await startService(opts);
  try {
    const unsub = opts.json ? () => undefined : svc.subscribe((e) => e.type === 'log' && process.stderr.write(`${e.message}\n`));
    const started = svc.startBench(doc, { params: paramOverrides(opts.param), repeat: intOption(opts.repeat, 'repeat', 1), warmup: intOption(opts.warmup, 'warmup', 0) });
    // SIGTERM / SIGINT stop the benchmark (its runs cancelled, its pools shut down), then exit.
    const stop = () => started.stop();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    let record: Awaited<typeof started.done>;
    try {
      record = await started.done;
    } finally {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
    }
    unsub();
    const slow = svc.store!.checkSlowdown(record.id);
    if (opts.json) process.stdout.write(JSON.stringify({ ...record, slowdowns: slow.slowdowns, previous: slow.previous?.id ?? null }, null, 2) + '\n');
    else {
      process.stdout.write(benchTable(record) + '\n');
      for (const s of slow.slowdowns) process.stdout.write(`SLOWER than benchmark ${slow.previous?.id}: ${JSON.stringify(s)}\n`);
    }
    return record.digestsAgree ? 0 : 1;
  } finally {
    await svc.close();
  }
}
