/**
 * How big a trial's model is, in multiply-adds per row (its weights: features x units + units x
 * units ... + units x outputs), and the measured sizes the rules compare it with: the worker's
 * choice of backend per trial (worker/kernels/tfjs/backend.ts trialBackend) and main's choice of
 * GPU workers per GPU for a search (main/engine/gpu-sharing.ts). Figures: docs/tuning.md, Speed.
 */

/** Multiply-adds per row of a dense model: layer widths from features to outputs. */
export function macsPerRow(widths: readonly number[]): number {
  let s = 0;
  for (let i = 1; i < widths.length; i++) s += widths[i - 1] * widths[i];
  return s;
}

/**
 * Below this many multiply-adds per row a trial trains faster on wasm than on gpuflow-cuda, whose
 * cost per op (JS engine + a kernel launch, some 10 us) is then most of the time. Measured on the
 * H100 machine in one call: small MLP, at most 1 440 per row: wasm 43 epochs/s, gpuflow-cuda 31;
 * wide MLP, 20 864 to 74 496 per row: gpuflow-cuda 16.3, wasm 6.8. The rule sits between the two;
 * the crossover itself was not measured.
 */
export const GPU_MIN_MACS_PER_ROW = 16_000;

/**
 * The largest model sharing a GPU between worker processes was measured with: the wide MLP of
 * bench/tuning/trials.ts at its widest (32 features, 2 layers of 256, 3 classes). Four bench
 * processes on one H100 trained 698 of its trials/min together, 2.4x one process (290/min)
 * (bench/results/tuning-trials-nvidia-h100-x4-30ffccc.json). Beyond it sharing is not measured.
 */
export const SHARED_GPU_MAX_MACS_PER_ROW = macsPerRow([32, 256, 256, 3]);

/** GPU worker processes per GPU that measurement used: 4 (no other count was measured). */
export const SHARED_GPU_WORKERS = 4;
