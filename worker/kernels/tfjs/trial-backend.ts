/**
 * Trains one trial on the backend the measured rule picks for it (backend.ts trialBackend: small
 * models on wasm beside gpuflow-cuda, large ones on the GPU) and says so: the result carries the
 * rule's words and the kernels that fell back to the CPU during the trial, and `label` is the
 * task's backend field in the run record.
 */
import * as tf from '@tensorflow/tfjs';
import type { TrialResult, TrialSpec } from '../../../common/tuning/trial';
import { backendLabel } from './backend-label';
import { macsPerRow, trialBackend, type BackendSelection } from './backend';
import { cpuFallbackCounts, fallbacksSince } from './cuda/register';
import { trainTrial, type TrainOptions, type TrialData } from './train';
import type { ModelShape } from './models';
import { traceStart } from '../../../common/start-trace';

/** Layer widths of the trial's dense model, features to outputs. */
function widths(spec: TrialSpec, shape: ModelShape): number[] {
  const outputs = shape.task === 'classification' && shape.nClasses > 2 ? shape.nClasses : 1;
  return [shape.nFeatures, ...(spec.model.kind === 'mlp' ? spec.model.hiddenLayers : []), outputs];
}

/** The backend the measured rule picks for a trial of `spec` over rows of `shape`. */
export function backendForTrial(sel: BackendSelection, spec: TrialSpec, shape: ModelShape): ReturnType<typeof trialBackend> {
  return trialBackend(sel, macsPerRow(widths(spec, shape)));
}

export async function trainOnChosenBackend(sel: BackendSelection, spec: TrialSpec, data: TrialData, opts: TrainOptions): Promise<{ result: TrialResult; label: string }> {
  const { train } = data;
  const choice = backendForTrial(sel, spec, { task: train.task, nFeatures: train.nFeatures, nClasses: train.classes.length });
  if (tf.getBackend() !== choice.backend) {
    await tf.setBackend(choice.backend);
    await tf.ready();
  }
  // The trace's step from the rows to the trial (docs/tuning.md, where the fixed part goes).
  traceStart('worker-trial-backend-set');
  const before = cpuFallbackCounts();
  const result = await trainTrial(spec, data, opts);
  const fallbacks = fallbacksSince(before);
  if (choice.rule) result.backendRule = choice.rule;
  if (Object.keys(fallbacks).length > 0) result.cpuFallbacks = fallbacks;
  let label = backendLabel(sel, choice.backend);
  if (choice.rule) label += ` (${choice.rule})`;
  if (result.cpuFallbacks) label += ` [cpu fallbacks: ${Object.entries(result.cpuFallbacks).map(([k, n]) => `${k} x${n}`).join(', ')}]`;
  return { result, label };
}
