// What a search-trial task does besides training, timed in one process on the CPU at the
// MNIST-shaped example's full size (examples/tuning-mnist-mlp.json: 60 000 x 784, 10 classes,
// 3 x 512, adam), so docs/tuning.md can say where the fixed part of a search run goes:
//   data      makeClassification + the stratified split (every worker, its first trial)
//   pack      a trained trial's packed output (weights, with and without optimizer state):
//             bytes, packModel, valueBytes (the worker sizes every output), the peer codec's
//             encode + decode (what a fetch from another worker costs on both sides), unpack
// The trial itself trains one epoch on 1 024 rows (the model's size, not the rows, sets the
// output's). Prints JSON lines. Run: node --import tsx bench/tuning/search-parts.ts [rows=60000]
import * as tf from '@tensorflow/tfjs';
import { valueBytes } from '../../common/arrays';
import { decodeValue, encodeValue } from '../../common/codec';
import { modelSpecFromParams } from '../../common/tuning/trial';
import { makeClassification } from '../../worker/kernels/tfjs/datasets';
import { packModel, unpackModel } from '../../worker/kernels/tfjs/pack';
import { trainValidationSplit } from '../../worker/kernels/tfjs/split';
import { trainTrial } from '../../worker/kernels/tfjs/train';
import { disposeModel } from '../../worker/kernels/tfjs/trained-model';
import { TrialModelStore } from '../../worker/kernels/tfjs/trial-store';

const rows = Number(process.argv[2] ?? 60000);

function timed<T>(fn: () => T): { value: T; ms: number } {
  const t0 = performance.now();
  const value = fn();
  return { value, ms: Math.round(performance.now() - t0) };
}

async function timedAsync<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: Math.round(performance.now() - t0) };
}

const line = (o: Record<string, unknown>) => process.stdout.write(JSON.stringify(o) + '\n');

await tf.setBackend('cpu');
const gen = timed(() => makeClassification({ nSamples: rows, nFeatures: 784, nInformative: 64, nClasses: 10, flipY: 0.02, seed: 1 }));
const split = timed(() => trainValidationSplit(gen.value, { validationFraction: 0.2, seed: 2, stratify: true }));
line({ part: 'data', rows, features: 784, generateMs: gen.ms, splitMs: split.ms, bytes: gen.value.x.byteLength });

const small = trainValidationSplit(makeClassification({ nSamples: 1280, nFeatures: 784, nInformative: 64, nClasses: 10, seed: 1 }), { validationFraction: 0.2, seed: 2 });
for (const optimizer of ['adam', 'sgd']) {
  const store = new TrialModelStore();
  const model = modelSpecFromParams({ kind: 'mlp' }, { layers: 3, units: 512, optimizer, learningRate: 0.001 });
  await trainTrial({ trialId: 't0', model, seed: 3, epochs: 1, metric: 'accuracy' }, small, { store });
  const m = store.get('t0');
  if (!m) throw new Error('the trial left no model');
  for (const includeOptimizer of [true, false]) {
    const packed = await timedAsync(() => packModel(m, { includeOptimizer }));
    const value = { kind: 'json' as const, value: { kind: 'trial', model: packed.value } as unknown as import('../../common/arrays').JsonValue };
    const sized = timed(() => valueBytes(value));
    const enc = timed(() => encodeValue(value));
    const dec = timed(() => decodeValue(enc.value.header, enc.value.buffers));
    const un = await timedAsync(() => unpackModel(packed.value));
    disposeModel(un.value.model);
    line({ part: 'pack', optimizer, includeOptimizer, base64Chars: packed.value.weights.length, packMs: packed.ms, valueBytesMs: sized.ms, encodeMs: enc.ms, decodeMs: dec.ms, unpackMs: un.ms });
  }
  store.clear();
}
