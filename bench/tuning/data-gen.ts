// The MNIST-shaped example's rows (examples/tuning-mnist-mlp.json: 60 000 x 784, 64 informative,
// 10 classes), which every worker of a search builds from the seed before its first trial:
// makeClassification's wall and CPU time (every thread's, the addon's pool included), best of
// `reps`, then the stratified split; the fill that made the rows (native/philox-fill.ts: 'native'
// = the addon's philoxFill on every core, at the SIMD level GPUFLOW_CPU_SIMD allows, 'best' when
// unset; 'js' = PhiloxStream, forced by GPUFLOW_NO_NATIVE=1) and their SHA-256 (the same for
// every fill). `concurrent` > 1 runs that many copies at once, as the workers of one host do,
// each printing its own line.
// One JSON line per process. Run: node --import tsx bench/tuning/data-gen.ts [rows=60000] [reps=3] [concurrent=1]
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { fillStream } from '../../native/philox-fill';
import { makeClassification } from '../../worker/kernels/tfjs/datasets';
import { trainValidationSplit } from '../../worker/kernels/tfjs/split';

const rows = Number(process.argv[2] ?? 60000);
const reps = Number(process.argv[3] ?? 3);
const concurrent = Number(process.argv[4] ?? 1);

if (concurrent > 1) {
  // The copies start together and each reports its own times (the host's cores are shared).
  const self = fileURLToPath(import.meta.url);
  await Promise.all(
    Array.from({ length: concurrent }, () => new Promise<void>((done) => {
      const child = spawn(process.execPath, [...process.execArgv, self, String(rows), String(reps), '1'], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DATA_GEN_OF: String(concurrent) } });
      child.on('exit', () => done());
    })),
  );
} else {
  const sha = (a: Float32Array) => createHash('sha256').update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)).digest('hex');
  const load = loadavg()[0];
  const fill = fillStream({ seed: 0, dist: 'normal', a: 0, b: 1 }, { start: 0, rows: 1, cols: 2, stride: 2 }, new Float64Array(2), 0, 2);
  const generateMs: number[] = [];
  // CPU time of every thread (the addon's pool included): on a loaded machine the wall time says
  // more about the other processes than about the generator.
  const cpuMs: number[] = [];
  let ds = makeClassification({ nSamples: 2, nFeatures: 784, nInformative: 64, nClasses: 2, seed: 1 });
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    ds = makeClassification({ nSamples: rows, nFeatures: 784, nInformative: 64, nClasses: 10, flipY: 0.02, seed: 1 });
    const c = process.cpuUsage(c0);
    generateMs.push(Math.round(performance.now() - t0));
    cpuMs.push(Math.round((c.user + c.system) / 1000));
  }
  const t0 = performance.now();
  trainValidationSplit(ds, { validationFraction: 0.2, seed: 2, stratify: true });
  const splitMs = Math.round(performance.now() - t0);
  process.stdout.write(
    JSON.stringify({ bench: 'tuning-data-gen', rows, features: 784, fill, simd: process.env.GPUFLOW_CPU_SIMD || 'best', threads: availableParallelism(), concurrent: Number(process.env.DATA_GEN_OF ?? 1), loadBefore: Math.round(load * 100) / 100, generateMs, bestMs: Math.min(...generateMs), cpuMs, splitMs, xSha256: sha(ds.x), ySha256: sha(ds.y) }) + '\n',
  );
}
