/**
 * Compile + schedule the seed workflow in 10x10 chunks with simulated workers, printing time per
 * phase; run with `node --import tsx --cpu-prof bench/reliability/schedule-load.ts N` to see where
 * a stall comes from. (test/reliability/load.test.ts is the measured version.)
 */
import { readFileSync } from 'node:fs';
import { compileWorkflow } from '../../main/engine/compile/compile';
import { Scheduler, type Instruction } from '../../main/engine/scheduler/scheduler';
import { validateWorkflow } from '../../main/engine/validate';

const N = Number(process.argv[2] ?? 1000);
const seed = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));
let t = performance.now();
const c = compileWorkflow(validateWorkflow(seed, { N, chunks: 10 }), { maxTaskBytes: 1 << 30 });
console.log(`tasks ${c.tasks.size} compile ${Math.round(performance.now() - t)} ms`);
t = performance.now();
const s = new Scheduler(c.tasks, c.outputs);
const queue: Array<{ key: string; worker: string }> = [];
let finished = false;
const take = (ins: Instruction[]) => {
  for (const i of ins) {
    if (i.type === 'execute') queue.push({ key: i.key, worker: i.worker });
    if (i.type === 'finished') finished = true;
  }
};
let seq = 1;
for (const id of ['w0', 'w1', 'w2', 'w3']) take(s.handle({ type: 'worker-added', id, kind: 'virtual-gpu', slots: 5 }, seq++));
take(s.start(seq++));
console.log(`ctor+start ${Math.round(performance.now() - t)} ms`);
t = performance.now();
let n = 0;
let worst = 0;
while (!finished && queue.length) {
  const { key, worker } = queue.shift()!;
  const a = performance.now();
  take(s.handle({ type: 'task-finished', key, worker, bytes: 8 }, seq++));
  worst = Math.max(worst, performance.now() - a);
  if (++n % 2000 === 0) console.log(`${n} stimuli, ${Math.round(performance.now() - t)} ms, worst ${worst.toFixed(1)} ms`);
}
console.log(`scheduled ${n} in ${Math.round(performance.now() - t)} ms, worst stimulus ${worst.toFixed(1)} ms, finished ${finished}`);
