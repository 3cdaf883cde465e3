/**
 * Records the event stream of a real run of about 11 000 tasks for the renderer benchmark: the
 * seed workflow at N=10 500 with 100×100 chunks (105² = 11 025 fused tasks plus the reduction
 * tree) on one CPU worker and three virtual GPUs, js backend. Every engine event of the run goes
 * to bench/renderer/stream-11k.json.gz with times relative to the run's start.
 * Run: npx tsx bench/renderer/record-stream.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import zlib from 'node:zlib';
import type { EngineEvent } from '../../common/events';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';

const doc = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));
const params = { N: 10_500, chunks: 100, seed: 0, dtype: 'float64' };
const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
const engine = new Engine(d, { launcher: forkLauncher(), virtualGpus: 3, cpuWorkers: 1, backends: ['js'], threadsPerCpuWorker: 1 });
await engine.start();
const events: EngineEvent[] = [];
const unsub = engine.bus.subscribe((e) => events.push(e));
const t0 = Date.now();
const r = await engine.run(validateWorkflow(doc, params)).result;
unsub();
await engine.shutdown();
const shift = (e: EngineEvent): EngineEvent => {
  const o: EngineEvent = { ...e, t: e.t - t0 };
  if (o.type === 'task' || o.type === 'transfer') return { ...o, start: o.start - t0, end: o.end - t0 };
  return o;
};
const kept = events.filter((e) => e.type !== 'log').map(shift);
const tasks = kept.filter((e) => e.type === 'task').length;
writeFileSync('bench/renderer/stream-11k.json.gz', zlib.gzipSync(JSON.stringify({ params, status: r.status, tasks, durationMs: Date.now() - t0, events: kept })));
console.log(`${r.status}: ${tasks} tasks, ${kept.length} events in ${Date.now() - t0} ms`);
process.exit(0);
