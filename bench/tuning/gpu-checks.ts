// GPU checks of the gpuflow-cuda tfjs backend, on the GPU machine: every case of
// worker/kernels/tfjs/cuda/checks.ts (device kernels, values and gradients, random shapes) against
// tfjs's cpu backend for several seeds, then whole trials (each optimizer and activation, dropout
// and l2 on) trained on both backends from the same seed, their per-epoch loss and validation
// metrics compared. Writes one JSON file.
// Run: node --import tsx bench/tuning/gpu-checks.ts [out.json]   (GPUFLOW_BENCH_FAKE_CUDA=1: fake device)
import * as tf from '@tensorflow/tfjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { modelSpecFromParams, type TrialResult } from '../../common/tuning/trial';
import { GPUFLOW_CUDA } from '../../worker/kernels/tfjs/cuda/backend';
import { runKernelChecks, TOLERANCE } from '../../worker/kernels/tfjs/cuda/checks';
import { registerOnNativeAddon } from '../../worker/kernels/tfjs/cuda/native-device';
import { runDropoutChecks, runLossSumChecks, runOptimizerChecks, runScaleChecks, TOLERANCE_AFTER_STEPS } from '../../worker/kernels/tfjs/cuda/fused-checks';
import { cpuFallbackCounts, deviceKernelNames, fallbacksSince } from '../../worker/kernels/tfjs/cuda/register';
import { makeClassification, makeRegression } from '../../worker/kernels/tfjs/datasets';
import { trainValidationSplit } from '../../worker/kernels/tfjs/split';
import { trainTrial } from '../../worker/kernels/tfjs/train';

const out = process.argv[2] ?? path.join('bench', 'results', `tuning-gpu-checks-${process.env.GPUFLOW_COMMIT ?? 'local'}.json`);
/** Whole trials: |loss_gpu - loss_cpu| <= TRIAL_RTOL |loss_cpu| per epoch, metrics likewise (atol 1e-3 for accuracy). */
const TRIAL_RTOL = 1e-3;

const why = registerOnNativeAddon();
if (why) throw new Error(`gpuflow-cuda cannot run here: ${why}`);

const kernelResults = [];
for (const seed of [1, 2, 3]) kernelResults.push(...(await runKernelChecks(seed)).map((r) => ({ seed, ...r })));
const kernelsCovered = [...new Set(kernelResults.flatMap((r) => r.kernels))].sort();
const optimizerResults = [];
for (const seed of [1, 2, 3]) optimizerResults.push(...(await runOptimizerChecks(seed, 5)).map((r) => ({ seed, ...r })));
const dropoutResults = [...(await runDropoutChecks(1)), ...(await runDropoutChecks(2))];
const scaleResults = [...(await runScaleChecks(1)), ...(await runScaleChecks(2))];
const lossSumResults = [...(await runLossSumChecks(1)), ...(await runLossSumChecks(2))];

const trials = [];
const settings = [
  { task: 'c3', activation: 'relu', optimizer: 'adam' },
  { task: 'c3', activation: 'tanh', optimizer: 'sgd' },
  { task: 'c2', activation: 'elu', optimizer: 'rmsprop' },
  { task: 'c2', activation: 'sigmoid', optimizer: 'adam' },
  { task: 'r', activation: 'relu', optimizer: 'rmsprop' },
] as const;
for (const s of settings) {
  const ds =
    s.task === 'r'
      ? makeRegression({ nSamples: 1500, nFeatures: 20, nInformative: 8, noise: 0.1, seed: 5 })
      : makeClassification({ nSamples: 1500, nFeatures: 20, nInformative: 8, nClasses: s.task === 'c2' ? 2 : 3, seed: 5 });
  const data = trainValidationSplit(ds, { validationFraction: 0.2, seed: 5 });
  const model = modelSpecFromParams({ kind: 'mlp', hiddenLayers: [64, 32], activation: s.activation, optimizer: s.optimizer, dropout: 0.1, l2: 1e-4, batchSize: 32, learningRate: 0.01 }, {});
  const spec = { trialId: `check-${s.task}-${s.activation}-${s.optimizer}`, seed: 11, epochs: 4, metric: s.task === 'r' ? ('mse' as const) : ('accuracy' as const), model };
  const run = async (backend: string): Promise<TrialResult> => {
    await tf.setBackend(backend);
    return trainTrial(spec, data);
  };
  const cpu = await run('cpu');
  const before = cpuFallbackCounts();
  const gpu = await run(GPUFLOW_CUDA);
  const fallbacks = fallbacksSince(before);
  let maxLossRel = 0;
  let maxMetricAbs = 0;
  cpu.history.forEach((h, i) => {
    const g = gpu.history[i];
    maxLossRel = Math.max(maxLossRel, Math.abs(g.loss - h.loss) / Math.abs(h.loss));
    for (const [k, v] of Object.entries(h.metrics)) maxMetricAbs = Math.max(maxMetricAbs, Math.abs((g.metrics as Record<string, number>)[k] - v));
  });
  trials.push({
    ...s,
    epochs: spec.epochs,
    ok: maxLossRel <= TRIAL_RTOL,
    maxLossRel,
    maxMetricAbs,
    cpuLoss: cpu.history.map((h) => h.loss),
    gpuLoss: gpu.history.map((h) => h.loss),
    cpuMetrics: cpu.history.at(-1)?.metrics,
    gpuMetrics: gpu.history.at(-1)?.metrics,
    cpuFallbacks: fallbacks,
  });
  console.error(JSON.stringify(trials.at(-1)));
}

const failed = kernelResults.filter((r) => !r.ok);
const optimizerFailed = optimizerResults.filter((r) => !r.ok);
const result = {
  bench: 'tuning-gpu-checks',
  date: new Date().toISOString(),
  commit: process.env.GPUFLOW_COMMIT ?? null,
  tolerance: { kernels: TOLERANCE, optimizersAfter5Steps: TOLERANCE_AFTER_STEPS, trialLossRtol: TRIAL_RTOL },
  deviceKernels: deviceKernelNames(),
  kernelsCovered,
  kernelCases: kernelResults.length,
  kernelCasesPassed: kernelResults.length - failed.length,
  failed,
  optimizerChecks: optimizerResults.length,
  optimizerChecksPassed: optimizerResults.length - optimizerFailed.length,
  optimizerResults,
  dropoutMasks: dropoutResults,
  dropoutMasksEqual: dropoutResults.every((d) => d.ok),
  featureScaling: scaleResults,
  featureScalingEqual: scaleResults.every((d) => d.ok),
  lossSums: lossSumResults,
  lossSumsEqual: lossSumResults.every((d) => d.ok),
  trials,
  kernelResults,
};
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify({ kernelCases: result.kernelCases, passed: result.kernelCasesPassed, failed: failed.map((f) => `${f.name} (seed ${f.seed}): ${f.error}`), optimizers: `${result.optimizerChecksPassed}/${result.optimizerChecks}`, dropoutMasksEqual: result.dropoutMasksEqual, featureScalingEqual: result.featureScalingEqual, lossSumsEqual: result.lossSumsEqual, optimizerFailed: optimizerFailed.map((f) => `${f.name} (seed ${f.seed}): ${f.error}`), trials: trials.map((t) => ({ ok: t.ok, maxLossRel: t.maxLossRel, fb: t.cpuFallbacks })) }));
