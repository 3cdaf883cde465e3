// Event-store throughput: how many task events per second the EventWriter path commits, with the
// per-run cap reached half-way (rows stop, aggregates continue). Prints one JSON object.
// Run: node --import tsx bench/store-events.ts [events=400000] [out.json]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../main/store';

const total = Number(process.argv[2] ?? 400_000);
const dir = mkdtempSync(join(tmpdir(), 'gpuflow-bench-store-'));
try {
  const store = openStore(join(dir, 'bench.db'), { eventCap: total / 2 });
  const { hash } = store.saveWorkflowVersion({ format: 'gpuflow.workflow/1', name: 'bench', nodes: [], edges: [] });
  const { id } = store.startRun({ workflowHash: hash, machine: 'bench' });
  const writer = store.createEventWriter({ flushMs: 250 });
  let pushNs = 0n;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < total; i++) {
    const p0 = process.hrtime.bigint();
    writer.push(id, { t: i, type: 'task-done', key: `x-${i}`, worker: `gpu${i % 8}`, op: `op${i % 16}`, ms: 1.5, bytes: 8192, backend: 'cuda' });
    pushNs += process.hrtime.bigint() - p0;
    if (i % 20_000 === 19_999) writer.flush(); // what the 250 ms timer does under a busy scheduler
  }
  writer.close();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const run = store.getRun(id)!;
  const result = {
    bench: 'store-events',
    events: total,
    stored: run.eventsTotal - run.eventsDropped,
    seconds,
    eventsPerSecond: Math.round(total / seconds),
    meanPushNs: Number(pushNs / BigInt(total)),
  };
  store.close();
  const text = JSON.stringify(result);
  console.log(text);
  if (process.argv[3]) writeFileSync(process.argv[3], `${text}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
