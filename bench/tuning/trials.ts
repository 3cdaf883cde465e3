// Trials per minute per TensorFlow.js backend available in this install (tensorflow via
// tfjs-node when it loads, gpuflow-cuda where the addon has CUDA, wasm, cpu), on three workloads:
// a small MLP like a typical tuning trial, a wider one where per-op overhead matters less, and
// the MNIST-shaped one of examples/tuning-mnist-mlp.json (60 000 x 784 synthetic, 3 x 512). Each trial is a real random-search trial
// (build, train epochs with seeded batches, score validation each epoch). One warm-up trial per
// backend is not counted. Prints one JSON object and writes it to bench/results/tuning-trials.json.
// Run: node --import tsx bench/tuning/trials.ts [trialsPerWorkload=8] [out.json]
//   TUNING_BACKENDS=gpuflow-cuda,wasm   backends to measure (default: all)
//   TUNING_WORKLOADS=mnist-mlp          workloads (default: small-mlp, wide-mlp; mnist-mlp by name)
//   TUNING_MNIST_TRIALS=n               trials of mnist-mlp per backend (default 2)
//   TUNING_MNIST_EPOCHS=n               epochs per mnist-mlp trial (default 2)
import * as tf from '@tensorflow/tfjs';
// Static, so a bundle of this bench (for a machine without node_modules) carries the wasm backend.
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SearchController } from '../../common/tuning/controller';
import { parseSearchSpace } from '../../common/tuning/space';
import { defaultTfjsEnvironment, wasmDistDir } from '../../worker/kernels/tfjs/backend';
import { GPUFLOW_CUDA } from '../../worker/kernels/tfjs/cuda/backend';
import { registerOnNativeAddon } from '../../worker/kernels/tfjs/cuda/native-device';
import { cpuFallbackCounts, fallbacksSince } from '../../worker/kernels/tfjs/cuda/register';
import { makeClassification } from '../../worker/kernels/tfjs/datasets';
import { runSearchInProcess } from '../../worker/kernels/tfjs/search-in-process';
import { trainValidationSplit } from '../../worker/kernels/tfjs/split';
import { TrialModelStore } from '../../worker/kernels/tfjs/trial-store';

const nTrials = Number(process.argv[2] ?? 8);
const out = process.argv[3] ?? path.join('bench', 'results', 'tuning-trials.json');

const allWorkloads = [
  { name: 'small-mlp', rows: 500, features: 10, units: [16, 32], layers: 2, epochs: 10, batchSize: 32, classes: 3 },
  { name: 'wide-mlp', rows: 2000, features: 32, units: [128, 256], layers: 2, epochs: 5, batchSize: 64, classes: 3 },
  // examples/tuning-mnist-mlp.json's shape: 60 000 rows (48 000 train) x 784, 3 layers of 512, 10 classes.
  { name: 'mnist-mlp', rows: 60000, features: 784, units: [512], layers: 3, epochs: 2, batchSize: 128, classes: 10 },
];
const workloadNames = (process.env.TUNING_WORKLOADS ?? 'small-mlp,wide-mlp').split(',');
const workloads = allWorkloads.filter((w) => workloadNames.includes(w.name));
const backends = (process.env.TUNING_BACKENDS ?? `tensorflow,${GPUFLOW_CUDA},wasm,cpu`).split(',');

/** Activates a backend; false when its package is absent or does not load here. */
async function activate(name: string): Promise<boolean> {
  try {
    if (name === GPUFLOW_CUDA) {
      const why = registerOnNativeAddon();
      if (why) throw new Error(why);
    }
    if (name === 'tensorflow') await defaultTfjsEnvironment.importModule('@tensorflow/tfjs-node');
    if (name === 'wasm') setWasmPaths(wasmDistDir());
    const ok = await tf.setBackend(name);
    await tf.ready();
    return ok && tf.getBackend() === name;
  } catch (e) {
    console.error(`${name}: ${e instanceof Error ? e.message : String(e)}`);
    return false;
  }
}

const datasets = new Map<string, ReturnType<typeof trainValidationSplit>>();
function dataOf(w: (typeof allWorkloads)[number]) {
  let d = datasets.get(`${w.name}:${w.rows}`);
  if (!d) {
    const ds = makeClassification({ nSamples: w.rows, nFeatures: w.features, nInformative: Math.min(w.name === 'mnist-mlp' ? 64 : 8, w.features), nClasses: w.classes, seed: 1 });
    d = trainValidationSplit(ds, { validationFraction: 0.2, seed: 1 });
    datasets.set(`${w.name}:${w.rows}`, d);
  }
  return d;
}

async function runWorkload(w: (typeof workloads)[number], trials: number) {
  const data = dataOf(w);
  const controller = new SearchController({
    method: 'random',
    space: parseSearchSpace({ learningRate: { loguniform: [1e-3, 0.1] }, units: w.units, layers: [w.layers], optimizer: ['adam', 'sgd', 'rmsprop'] }),
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
for (const backend of backends) {
  if (!(await activate(backend))) {
    skipped.push(backend);
    continue;
  }
  for (const w of workloads) {
    const big = w.name === 'mnist-mlp';
    const trials = big ? Number(process.env.TUNING_MNIST_TRIALS ?? 2) : nTrials;
    const wl = big ? { ...w, epochs: Number(process.env.TUNING_MNIST_EPOCHS ?? w.epochs) } : w;
    // warm-up: kernels compiled / wasm instantiated / cuBLAS loaded; the big one is warmed by a
    // trial of 2 000 of its rows (its full epoch on wasm takes minutes).
    await runWorkload(big ? { ...w, rows: 2000, epochs: 1 } : w, 1);
    const before = cpuFallbackCounts();
    const r = await runWorkload(wl, trials);
    results.push({
      backend,
      workload: w.name,
      rows: w.rows,
      features: w.features,
      epochsPerTrial: wl.epochs,
      trials,
      batchSize: w.batchSize,
      seconds: Number(r.seconds.toFixed(3)),
      trialsPerMinute: Number(((trials / r.seconds) * 60).toFixed(1)),
      epochsPerSecond: Number((r.epochs / r.seconds).toFixed(1)),
      bestAccuracy: r.bestScore,
      ...(backend === GPUFLOW_CUDA ? { cpuFallbacks: fallbacksSince(before) } : {}),
    });
    console.error(JSON.stringify(results.at(-1)));
  }
}
const result = {
  bench: 'tuning-trials',
  date: new Date().toISOString(),
  machine: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, loadAverage1m: Number(os.loadavg()[0].toFixed(2)), node: process.version, tfjs: tf.version.tfjs, wasmSimd: !backends.includes('wasm') || skipped.includes('wasm') ? null : tf.env().getBool('WASM_HAS_SIMD_SUPPORT'), wasmThreads: !backends.includes('wasm') || skipped.includes('wasm') ? null : tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT') },
  skipped,
  results,
};
const text = JSON.stringify(result);
console.log(text);
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
