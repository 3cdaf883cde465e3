/**
 * How many GPU worker processes a run starts on each GPU, read from its compiled graph: a search
 * whose trials train on gpuflow-cuda and are all small enough that one process leaves the GPU
 * idle most of the time (the JS side of its kernel calls bounds a trial, docs/tuning.md) gets
 * several, so several trials train on one GPU at once. One rule for every front end: `gpuflow
 * run` and a benchmark's GPU configurations ask it before their pool starts (WorkerPool.shareGpus);
 * serve and the app, whose pool is warm, ask it for each run they start and lend that run the
 * missing workers (GpuflowService.launch, WorkerPool.lendGpuWorkers).
 */
import type { TaskGraph } from '../../common/tasks';
import { parseTrialOpParams } from '../../common/tuning/op-params';
import { GPU_MIN_MACS_PER_ROW, macsPerRow, SHARED_GPU_MAX_MACS_PER_ROW, SHARED_GPU_WORKERS } from '../../common/tuning/trial-size';
import { classificationShape, regressionFeatures } from '../../worker/kernels/tfjs/datasets';
import { ENV_PER_DEVICE, type GpuSharing, type PlanOptions } from '../cluster/plan';

/**
 * The rule: GPUFLOW_GPU_WORKERS_PER_DEVICE when set; else, for a search with trials on
 * gpuflow-cuda (the cuda backend allowed, largest trial >= GPU_MIN_MACS_PER_ROW) whose largest
 * trial is at most the largest measured sharing a GPU, SHARED_GPU_WORKERS; else one, with why.
 * Undefined when the variable is set (the pool reads it). `workers`: --no-gpus and --backend (serve:
 * whether its pool has GPU workers, and its --backend).
 */
export function planGpuSharing(graph: TaskGraph, workers: Pick<PlanOptions, 'useGpus' | 'backends'>, env: NodeJS.ProcessEnv = process.env): GpuSharing | undefined {
  const set = env[ENV_PER_DEVICE];
  // The pool reads and checks the variable itself (plan.ts); here it only means the rule stays out.
  if (set !== undefined && set !== '') return undefined;
  let largest = 0;
  let trials = 0;
  for (const t of graph.tasks.values()) {
    if (t.spec.kind !== 'trial' || t.spec.op !== 'search-trial') continue;
    const p = parseTrialOpParams('search-trial', t.spec.params);
    // Later rounds train on the models of round 0.
    if (!p.trial) continue;
    trials++;
    const outputs = outputWidth(p.data.source);
    if (outputs === null) return one("a search on a table's classes: its trials' size is known only in the worker");
    const features = featureCount(p.data.source);
    const m = p.trial.model;
    largest = Math.max(largest, macsPerRow([features, ...(m.kind === 'mlp' ? m.hiddenLayers : []), outputs]));
  }
  if (trials === 0) return one('no search in the workflow');
  if (workers.useGpus === false) return one('no GPU workers (--no-gpus)');
  const { backends } = workers;
  if (backends !== undefined && !backends.includes('cuda')) return one(`--backend ${backends.join(',')}: no trial trains on gpuflow-cuda`);
  if (largest < GPU_MIN_MACS_PER_ROW) return one(`largest trial ${largest} multiply-adds per row < ${GPU_MIN_MACS_PER_ROW}: trials train on wasm`);
  if (largest > SHARED_GPU_MAX_MACS_PER_ROW) return one(`largest trial ${largest} multiply-adds per row > ${SHARED_GPU_MAX_MACS_PER_ROW}: sharing a GPU not measured for it`);
  return {
    perDevice: SHARED_GPU_WORKERS,
    why: `largest trial ${largest} multiply-adds per row, within [${GPU_MIN_MACS_PER_ROW}, ${SHARED_GPU_MAX_MACS_PER_ROW}]: ${SHARED_GPU_WORKERS} trials per GPU at once (measured 2.4x one on an H100)`,
  };
}

const one = (why: string): GpuSharing => ({ perDevice: 1, why: `one per GPU: ${why}` });

type Source = ReturnType<typeof parseTrialOpParams<'search-trial'>>['data']['source'];

function featureCount(s: Source): number {
  if (s.kind === 'table') return s.features.length;
  return s.kind === 'classification' ? classificationShape(s).features : regressionFeatures(s);
}

/** The model's output units as the worker builds them (trial-backend.ts widths); null when unknown at compile. */
function outputWidth(s: Source): number | null {
  if (s.kind === 'regression') return 1;
  if (s.kind === 'table') return s.task === 'regression' ? 1 : null;
  const k = classificationShape(s).classes;
  return k > 2 ? k : 1;
}
