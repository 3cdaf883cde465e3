/**
 * Checks of the device dropout mask (equal bit for bit to dropout-mask.ts's host mask) and of the
 * fused optimizers (fused-optimizers.ts) against tfjs's own on the cpu backend:
 * the same variables and gradients (seeded), `steps` updates, then the variables and the
 * optimizer state compared within TOLERANCE_AFTER_STEPS; and a state hand-over (the fused
 * optimizer's getWeights loaded into tfjs's on cpu, trained on there), so a trial packed on the
 * GPU resumes on a CPU backend; the device's feature scaling and running loss sum against the
 * host's bytes. Run by the unit test over the fake device and by
 * bench/tuning/gpu-checks.ts on the GPU.
 */
import * as tf from '@tensorflow/tfjs';
import { Uniforms } from '../../../../common/tuning/random';
import { dropoutMask } from '../../../../common/tuning/dropout-mask';
import { GPUFLOW_CUDA } from './backend';
import { DROPOUT, DROPOUT_MASK, LOSS_SUM, SCALE_COLUMNS } from './kernels';
import { scaleX, type Scaler } from '../scaling';
import { FusedAdam, FusedRmsprop, FusedSgd } from './fused-optimizers';

/** After k steps: |gpu - cpu| <= atol + rtol |cpu| (float32; Adam divides by small second moments). */
export const TOLERANCE_AFTER_STEPS = { atol: 1e-5, rtol: 1e-4 };

export interface OptimizerCheck {
  name: string;
  steps: number;
  ok: boolean;
  maxAbsErr: number;
  stateNames: string[];
  error?: string;
}

interface Maker {
  name: string;
  cpu: () => tf.Optimizer;
  fused: () => tf.Optimizer;
}

const MAKERS: Maker[] = [
  { name: 'sgd', cpu: () => tf.train.sgd(0.05), fused: () => new FusedSgd(0.05) },
  { name: 'momentum', cpu: () => tf.train.momentum(0.05, 0.9), fused: () => new FusedSgd(0.05, 0.9) },
  { name: 'momentum nesterov', cpu: () => tf.train.momentum(0.05, 0.8, true), fused: () => new FusedSgd(0.05, 0.8, true) },
  { name: 'adam', cpu: () => tf.train.adam(0.01), fused: () => new FusedAdam(0.01) },
  { name: 'adam betas', cpu: () => tf.train.adam(0.003, 0.8, 0.99, 1e-6), fused: () => new FusedAdam(0.003, 0.8, 0.99, 1e-6) },
  { name: 'rmsprop', cpu: () => tf.train.rmsprop(0.01), fused: () => new FusedRmsprop(0.01) },
  { name: 'rmsprop momentum', cpu: () => tf.train.rmsprop(0.01, 0.8, 0.5, 1e-6), fused: () => new FusedRmsprop(0.01, 0.8, 0.5, 1e-6) },
];

interface Problem {
  shapes: number[][];
  init: number[][];
  /** grads[step][variable] */
  grads: number[][][];
}

function problem(seed: number, steps: number): Problem {
  const u = new Uniforms(seed);
  let at = 0;
  const draw = () => 2 * u.at(at++) - 1;
  const dim = () => 1 + Math.floor(u.at(at++) * 40);
  const shapes = [[dim(), dim()], [dim()]];
  const size = (s: number[]) => s.reduce((a, b) => a * b, 1);
  return {
    shapes,
    init: shapes.map((s) => Array.from({ length: size(s) }, draw)),
    grads: Array.from({ length: steps }, () => shapes.map((s) => Array.from({ length: size(s) }, draw))),
  };
}

let serial = 0;

/** Runs `steps` updates of `opt` on `backend`; returns the variables' and the state's values. */
async function train(backend: string, opt: tf.Optimizer, p: Problem, steps: number, from?: { name: string; tensor: tf.Tensor }[]) {
  await tf.setBackend(backend);
  const tag = `optcheck${serial++}`;
  const vars = p.shapes.map((s, i) => tf.variable(tf.tensor(p.init[i], s), true, `${tag}/v${i}`));
  if (from) await opt.setWeights(from);
  for (let k = 0; k < steps; k++) {
    const grads = Object.fromEntries(vars.map((v, i) => [v.name, tf.tensor(p.grads[k][i], p.shapes[i])]));
    opt.applyGradients(grads);
    tf.dispose(Object.values(grads));
  }
  const state = await opt.getWeights();
  const out = {
    values: vars.map((v) => Array.from(v.dataSync())),
    state: state.map((w) => ({ name: w.name.replace(tag, '<var>'), values: Array.from(w.tensor.dataSync()) })),
  };
  tf.dispose(vars);
  return out;
}

function maxErr(got: number[][], want: number[][], tol: typeof TOLERANCE_AFTER_STEPS): { max: number; bad?: string } {
  let max = 0;
  let bad: string | undefined;
  want.forEach((w, i) =>
    w.forEach((v, j) => {
      const e = Math.abs(got[i][j] - v);
      max = Math.max(max, e);
      if (!(e <= tol.atol + tol.rtol * Math.abs(v))) bad ??= `[${i}][${j}] = ${got[i][j]}, cpu ${v}`;
    }),
  );
  return { max, bad };
}

/** Every optimizer: `steps` steps on both backends; then 3 fused steps handed to tfjs's on cpu for 2 more. */
export async function runOptimizerChecks(seed = 1, steps = 5, tol = TOLERANCE_AFTER_STEPS): Promise<OptimizerCheck[]> {
  const out: OptimizerCheck[] = [];
  for (const m of MAKERS) {
    const p = problem(seed * 101 + out.length, steps);
    try {
      const cpuOpt = m.cpu(), gpuOpt = m.fused();
      const want = await train('cpu', cpuOpt, p, steps);
      const got = await train(GPUFLOW_CUDA, gpuOpt, p, steps);
      const names = got.state.map((s) => s.name);
      const wantNames = want.state.map((s) => s.name);
      let error = names.join() === wantNames.join() ? undefined : `state names ${names.join()} against cpu ${wantNames.join()}`;
      const v = maxErr(got.values, want.values, tol);
      const s = maxErr(got.state.map((x) => x.values), want.state.map((x) => x.values), tol);
      error ??= v.bad ? `variable ${v.bad}` : s.bad ? `state ${s.bad}` : undefined;
      cpuOpt.dispose();
      gpuOpt.dispose();
      out.push({ name: m.name, steps, ok: !error, maxAbsErr: Math.max(v.max, s.max), stateNames: names, ...(error ? { error } : {}) });

      // Hand-over: 3 fused steps, state into tfjs's optimizer on cpu, 2 more there (variables
      // restarted from the fused run's values), against 5 steps on cpu.
      const first = m.fused();
      const part = { ...p, grads: p.grads.slice(0, 3) };
      await tf.setBackend(GPUFLOW_CUDA);
      const mid = await train(GPUFLOW_CUDA, first, part, 3);
      await tf.setBackend('cpu');
      const state = await first.getWeights();
      const handed = state.map((w) => ({ name: w.name, tensor: tf.tensor(w.tensor.dataSync(), w.tensor.shape, w.tensor.dtype) }));
      first.dispose();
      const second = m.cpu();
      const rest = await train('cpu', second, { shapes: p.shapes, init: mid.values, grads: p.grads.slice(3) }, steps - 3, handed);
      second.dispose();
      tf.dispose(handed.map((h) => h.tensor));
      const h = maxErr(rest.values, want.values, tol);
      out.push({ name: `${m.name} handed to cpu after 3`, steps, ok: !h.bad, maxAbsErr: h.max, stateNames: mid.state.map((x) => x.name), ...(h.bad ? { error: `variable ${h.bad}` } : {}) });
    } catch (e) {
      out.push({ name: m.name, steps, ok: false, maxAbsErr: NaN, stateNames: [], error: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}

export interface DropoutCheck {
  n: number;
  rate: number;
  seed: number;
  /** Elements whose device value differs from the host mask's (0 expected: same bits). */
  differing: number;
  /** Elements of dropout applied on the device (DROPOUT) that differ from x times the host mask. */
  differingApplied: number;
  keptFraction: number;
  ok: boolean;
}

/** Elements of the device tensor `t` whose bits differ from `want`'s; `t` is disposed. */
function differingBits(t: tf.Tensor, want: ArrayLike<number>): number {
  const got = t.dataSync();
  t.dispose();
  let differing = 0;
  for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) differing++;
  return differing;
}

/** Device masks of a few sizes (4k + 1..3 tails included) and rates against the host's. */
export async function runDropoutChecks(seed = 1): Promise<DropoutCheck[]> {
  await tf.setBackend(GPUFLOW_CUDA);
  const out: DropoutCheck[] = [];
  for (const [n, rate] of [[1, 0.5], [7, 0.1], [4096, 0.25], [128 * 513 + 3, 0.5], [100_001, 0.9]] as const) {
    const s = seed * 7919 + n;
    const want = dropoutMask(n, s, rate);
    const differing = differingBits(tf.engine().runKernel(DROPOUT_MASK, {}, { shape: [n], seed: s, rate }) as tf.Tensor, want);
    const draws = new Uniforms(s);
    const x = Float32Array.from({ length: n }, (_, i) => (draws.at(i) - 0.5) * 8);
    const applied = tf.tidy(() => tf.engine().runKernel(DROPOUT, { x: tf.tensor1d(x) }, { seed: s, rate }) as tf.Tensor);
    const differingApplied = differingBits(applied, Float32Array.from(x, (v, i) => v * want[i]));
    let kept = 0;
    for (let i = 0; i < n; i++) if (want[i] !== 0) kept++;
    out.push({ n, rate, seed: s, differing, differingApplied, keptFraction: kept / n, ok: differing === 0 && differingApplied === 0 });
  }
  return out;
}

export interface ScaleCheck {
  rows: number;
  cols: number;
  /** Elements whose device value differs from the host scaleX's (0 expected: same bits). */
  differing: number;
  ok: boolean;
}

/**
 * The device's feature scaling (SCALE_COLUMNS) against the host's scaleX, bit for bit: seeded
 * rows of mixed scale, statistics with many significant bits, a column of deviation 1.
 */
export async function runScaleChecks(seed = 1): Promise<ScaleCheck[]> {
  await tf.setBackend(GPUFLOW_CUDA);
  const draws = new Uniforms(seed);
  let k = 0;
  const u = { next: () => draws.at(k++) };
  const out: ScaleCheck[] = [];
  for (const [rows, cols] of [[1, 1], [3, 7], [257, 33], [1000, 784]] as const) {
    const x = Float32Array.from({ length: rows * cols }, () => (u.next() - 0.5) * 10 ** Math.floor(u.next() * 6 - 2));
    const s: Scaler = { xMean: Array.from({ length: cols }, () => u.next() * 3 - 1.5), xStd: Array.from({ length: cols }, (_, j) => (j === 0 ? 1 : 0.01 + u.next() * 7)), yMean: 0, yStd: 1 };
    const t = tf.tidy(() => tf.engine().runKernel(SCALE_COLUMNS, { x: tf.tensor2d(x, [rows, cols]) }, { mean: s.xMean, std: s.xStd }) as tf.Tensor);
    const differing = differingBits(t, scaleX(s, x, rows));
    out.push({ rows, cols, differing, ok: differing === 0 });
  }
  return out;
}

export interface LossSumCheck {
  batches: number;
  /** The device's sum of loss x rows and the host's `sum += loss * rows` (equal expected: same bits). */
  device: number;
  host: number;
  ok: boolean;
}

/**
 * The device's running loss sum (LOSS_SUM, train-step.ts) against the host's double sum of
 * float32 losses times rows, bit for bit: seeded losses over five orders of magnitude, batches
 * of 1 to 512 rows.
 */
export async function runLossSumChecks(seed = 1): Promise<LossSumCheck[]> {
  await tf.setBackend(GPUFLOW_CUDA);
  const draws = new Uniforms(seed);
  let k = 0;
  const next = () => draws.at(k++);
  const out: LossSumCheck[] = [];
  for (const batches of [1, 7, 375]) {
    let host = 0;
    let acc: tf.Tensor | undefined;
    for (let b = 0; b < batches; b++) {
      const loss = Math.fround(next() * 10 ** Math.floor(next() * 5 - 2));
      const rows = 1 + Math.floor(next() * 512);
      host += loss * rows;
      const l = tf.scalar(loss);
      const sum = tf.engine().runKernel(LOSS_SUM, acc ? { acc, loss: l } : { loss: l }, { n: rows }) as tf.Tensor;
      tf.dispose([l, ...(acc ? [acc] : [])]);
      acc = sum;
    }
    const bits = acc ? acc.dataSync() : new Float32Array(2);
    acc?.dispose();
    const device = new Float64Array(bits.buffer, bits.byteOffset, 1)[0];
    out.push({ batches, device, host, ok: Object.is(device, host) });
  }
  return out;
}
