// Trials per minute per TensorFlow.js backend available in this install (tensorflow via
// tfjs-node when it loads, wasm, cpu), on two workloads: a small MLP like a typical tuning trial
// and a wider one where per-op overhead matters less. Each trial is a real random-search trial
// (build, train epochs with seeded batches, score validation each epoch). One warm-up trial per
// backend is not counted. Prints one JSON object and writes it to bench/results/tuning-trials.json.
// Run: node --import tsx bench/tuning/trials.ts [trialsPerWorkload=8] [out.json]
import * as tf from '@tensorflow/tfjs';
// Static, so a bundle of this bench (for a machine without node_modules) carries the wasm backend.
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SearchController } from '../../common/tuning/controller';
import { parseSearchSpace } from '../../common/tuning/space';
import { defaultTfjsEnvironment, wasmDistDir, type TfjsBackendName } from '../../worker/kernels/tfjs/backend';
import { makeClassification } from '../../worker/kernels/tfjs/datasets';
import { runSearchInProcess } from '../../worker/kernels/tfjs/search-in-process';
import { trainValidationSplit } from '../../worker/kernels/tfjs/split';
import { TrialModelStore } from '../../worker/kernels/tfjs/trial-store';

const nTrials = Number(process.argv[2] ?? 8);
const out = process.argv[3] ?? path.join('bench', 'results', 'tuning-trials.json');

const workloads = [
  { name: 'small-mlp', rows: 500, features: 10, units: [16, 32], epochs: 10, batchSize: 32 },
  { name: 'wide-mlp', rows: 2000, features: 32, units: [128, 256], epochs: 5, batchSize: 64 },
];

/** Activates a backend; false when its package is absent or does not load here. */
async function activate(name: TfjsBackendName): Promise<boolean> {
  try {
    if (name === 'tensorflow') await defaultTfjsEnvironment.importModule('@tensorflow/tfjs-node');
    if (name === 'wasm') setWasmPaths(wasmDistDir());
    return await defaultTfjsEnvironment.setBackend(name);
  } catch {
    return false;
  }
}

async function runWorkload(w: (typeof workloads)[number], trials: number) {
  const ds = makeClassification({ nSamples: w.rows, nFeatures: w.features, nInformative: Math.min(8, w.features), nClasses: 3, seed: 1 });
  const data = trainValidationSplit(ds, { validationFraction: 0.2, seed: 1 });
  const controller = new SearchController({
    method: 'random',
    space: parseSearchSpace({ learningRate: { loguniform: [1e-3, 0.1] }, units: w.units, optimizer: ['adam', 'sgd', 'rmsprop'] }),
    nTrials: trials,
    epochs: w.epochs,
    seed: 7,
  });
  const store = new TrialModelStore();
  const t0 = process.hrtime.bigint();
  const r = await runSearchInProcess(controller, data, { base: { kind: 'mlp', batchSize: w.batchSize }, metric: 'accuracy', store });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  store.clear();
  return { seconds, epochs: r.epochs, bestScore: r.best?.score ?? null };
}

const results = [];
const skipped: string[] = [];
for (const backend of ['tensorflow', 'wasm', 'cpu'] as const) {
  if (!(await activate(backend))) {
    skipped.push(backend);
    continue;
  }
  for (const w of workloads) {
    await runWorkload(w, 1); // warm-up: kernels compiled / wasm instantiated
    const r = await runWorkload(w, nTrials);
    results.push({
      backend,
      workload: w.name,
      rows: w.rows,
      features: w.features,
      epochsPerTrial: w.epochs,
      trials: nTrials,
      seconds: Number(r.seconds.toFixed(3)),
      trialsPerMinute: Number(((nTrials / r.seconds) * 60).toFixed(1)),
      epochsPerSecond: Number((r.epochs / r.seconds).toFixed(1)),
      bestAccuracy: r.bestScore,
    });
    console.error(JSON.stringify(results.at(-1)));
  }
}
const result = {
  bench: 'tuning-trials',
  date: new Date().toISOString(),
  machine: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, loadAverage1m: Number(os.loadavg()[0].toFixed(2)), node: process.version, tfjs: tf.version.tfjs, wasmSimd: skipped.includes('wasm') ? null : tf.env().getBool('WASM_HAS_SIMD_SUPPORT'), wasmThreads: skipped.includes('wasm') ? null : tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT') },
  skipped,
  results,
};
const text = JSON.stringify(result);
console.log(text);
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
