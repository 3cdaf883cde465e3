/**
 * Checks of gpuflow-cuda against tfjs's cpu backend: every device kernel (values, and gradients
 * where the op has one) on random shapes and values, drawn from a seed so both backends see the
 * same inputs. Run by the unit test over the fake device (native/fake-tf-ops.ts) and by
 * bench/tuning/gpu-checks.ts on the GPU. Tolerance: |gpu - cpu| <= atol + rtol |cpu| (float32).
 */
import * as tf from '@tensorflow/tfjs';
import { Uniforms } from '../../../../common/tuning/random';
import { GPUFLOW_CUDA } from './backend';
import { fusedCategoricalCrossentropy } from './cross-entropy';

export interface CheckResult {
  name: string;
  /** The kernels the case runs (tf.profile's names) on the device backend. */
  kernels: string[];
  ok: boolean;
  maxAbsErr: number;
  maxRelErr: number;
  error?: string;
}

export const TOLERANCE = { atol: 1e-5, rtol: 1e-4 };

/** Uniform draws in [0, 1) from the project's seeded Philox stream (1 - its (0, 1]), one after another. */
function rng(seed: number): () => number {
  const u = new Uniforms(seed);
  let i = 0;
  return () => 1 - u.at(i++);
}

interface Spec {
  shape: number[];
  dtype?: 'float32' | 'int32' | 'bool';
  /** Values in [lo, hi) (ints: integers in it). */
  lo?: number;
  hi?: number;
}

interface Case {
  name: string;
  inputs: (r: () => number) => Spec[];
  f: (...xs: tf.Tensor[]) => tf.Tensor | tf.Tensor[];
  /** Compare gradients of sum(f) with respect to the float inputs. */
  grad?: boolean;
}

const dim = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

function values(s: Spec, r: () => number): number[] {
  const n = s.shape.reduce((a, b) => a * b, 1);
  const lo = s.lo ?? -2, hi = s.hi ?? 2;
  return Array.from({ length: n }, () => (s.dtype === 'int32' || s.dtype === 'bool' ? Math.floor(lo + r() * (hi - lo)) : lo + r() * (hi - lo)));
}

const m2 = (r: () => number): number[] => [dim(r, 1, 37), dim(r, 1, 41)];

function binaryCases(): Case[] {
  const ops: [string, (a: tf.Tensor, b: tf.Tensor) => tf.Tensor, number?][] = [
    ['add', tf.add], ['sub', tf.sub], ['mul', tf.mul], ['div', tf.div, 0.5], ['maximum', tf.maximum], ['minimum', tf.minimum],
    ['pow', tf.pow, 0.5], ['squaredDifference', tf.squaredDifference],
  ];
  const out: Case[] = [];
  // tfjs's gradients of these do not reduce a broadcast input's gradient to its shape (on every
  // backend): only their values are compared when broadcasting.
  const noBroadcastGrad = new Set(['maximum', 'minimum', 'squaredDifference']);
  for (const [name, f, lo] of ops) {
    const pos = lo !== undefined;
    const bg = !noBroadcastGrad.has(name);
    out.push({ name: `${name} same shape`, inputs: (r) => { const s = m2(r); return [{ shape: s, lo: pos ? lo : -2 }, { shape: s, lo: pos ? lo : -2 }]; }, f, grad: true });
    out.push({ name: `${name} row broadcast`, inputs: (r) => { const s = m2(r); return [{ shape: s, lo: pos ? lo : -2 }, { shape: [s[1]], lo: pos ? lo : -2 }]; }, f, grad: bg });
    out.push({ name: `${name} outer broadcast`, inputs: (r) => [{ shape: [dim(r, 1, 9), 1, dim(r, 1, 5)], lo: pos ? lo : -2 }, { shape: [dim(r, 2, 7), 1], lo: pos ? lo : -2 }], f, grad: bg });
    out.push({ name: `${name} scalar`, inputs: (r) => [{ shape: m2(r), lo: pos ? lo : -2 }, { shape: [], lo: pos ? lo : -2 }], f, grad: bg });
  }
  out.push({ name: 'add int32', inputs: (r) => { const s = m2(r); return [{ shape: s, dtype: 'int32', lo: -9, hi: 9 }, { shape: [s[1]], dtype: 'int32', lo: -9, hi: 9 }]; }, f: tf.add });
  for (const [name, f] of [['equal', tf.equal], ['notEqual', tf.notEqual], ['less', tf.less], ['lessEqual', tf.lessEqual], ['greater', tf.greater], ['greaterEqual', tf.greaterEqual]] as const) {
    out.push({ name: `${name} int32`, inputs: (r) => { const s = m2(r); return [{ shape: s, dtype: 'int32', lo: 0, hi: 3 }, { shape: [s[1]], dtype: 'int32', lo: 0, hi: 3 }]; }, f });
    out.push({ name: `${name} float32`, inputs: (r) => { const s = m2(r); return [{ shape: s }, { shape: s }]; }, f });
  }
  for (const [name, f] of [['logicalAnd', tf.logicalAnd], ['logicalOr', tf.logicalOr]] as const)
    out.push({ name, inputs: (r) => { const s = m2(r); return [{ shape: s, dtype: 'bool', lo: 0, hi: 2 }, { shape: s, dtype: 'bool', lo: 0, hi: 2 }]; }, f });
  return out;
}

function unaryCases(): Case[] {
  const ops: [string, (x: tf.Tensor) => tf.Tensor, number, number, boolean][] = [
    ['neg', tf.neg, -3, 3, true], ['abs', tf.abs, -3, 3, true], ['square', tf.square, -3, 3, true], ['sqrt', tf.sqrt, 0.1, 4, true],
    ['rsqrt', tf.rsqrt, 0.1, 4, true], ['exp', tf.exp, -3, 3, true], ['expm1', tf.expm1, -3, 3, true], ['log', tf.log, 0.1, 4, true],
    ['log1p', tf.log1p, -0.5, 4, true], ['relu', tf.relu, -3, 3, true], ['relu6', tf.relu6, -3, 9, true], ['sigmoid', tf.sigmoid, -6, 6, true],
    ['tanh', tf.tanh, -3, 3, true], ['elu', tf.elu, -3, 3, true], ['floor', tf.floor, -3, 3, false], ['ceil', tf.ceil, -3, 3, false],
    ['round', tf.round, -3, 3, false], ['sign', tf.sign, -3, 3, false], ['reciprocal', tf.reciprocal, 0.5, 3, true], ['softplus', tf.softplus, -20, 20, true],
    ['step', (x) => tf.step(x, 0.3), -3, 3, false], ['leakyRelu', (x) => tf.leakyRelu(x, 0.1), -3, 3, true],
    ['clipByValue', (x) => tf.clipByValue(x, -0.7, 1.3), -3, 3, true], ['logSoftmax', (x) => tf.logSoftmax(x), -3, 3, true],
    ['softmax', (x) => tf.softmax(x), -3, 3, true],
  ];
  return ops.map(([name, f, lo, hi, grad]) => ({ name, inputs: (r: () => number) => [{ shape: [dim(r, 1, 33), dim(r, 1, 70)], lo, hi }], f, grad }));
}

function otherCases(): Case[] {
  const axesCases: Case[] = [];
  const reducers: [string, (x: tf.Tensor, axis: number | number[], keep: boolean) => tf.Tensor, boolean][] = [
    ['sum', (x, a, k) => tf.sum(x, a, k), true], ['mean', (x, a, k) => tf.mean(x, a, k), true], ['max', (x, a, k) => tf.max(x, a, k), true],
    ['min', (x, a, k) => tf.min(x, a, k), false], ['prod', (x, a, k) => tf.prod(x, a, k), false],
  ];
  for (const [name, f, grad] of reducers)
    for (const axis of [[0], [1], [2], [0, 2], [0, 1, 2]])
      axesCases.push({ name: `${name} axis ${axis.join(',')}`, inputs: (r) => [{ shape: [dim(r, 1, 9), dim(r, 1, 11), dim(r, 1, 13)], lo: 0.5, hi: 1.5 }], f: (x) => f(x, axis, axis.length === 1), grad });
  for (const axis of [0, 1]) {
    axesCases.push({ name: `argMax axis ${axis}`, inputs: (r) => [{ shape: m2(r) }], f: (x) => tf.argMax(x, axis) });
    axesCases.push({ name: `argMin axis ${axis}`, inputs: (r) => [{ shape: m2(r) }], f: (x) => tf.argMin(x, axis) });
  }
  axesCases.push({ name: 'sum int32', inputs: (r) => [{ shape: m2(r), dtype: 'int32', lo: -9, hi: 9 }], f: (x) => tf.sum(x, 1) });
  // The leading axes reduce in one pass (ReduceCols): a bias gradient's batch sum, unsorted axes, ints.
  axesCases.push({ name: 'sum axis 0 of 2-d (bias gradient)', inputs: (r) => [{ shape: [dim(r, 1, 140), dim(r, 1, 70)] }], f: (x) => tf.sum(x, 0), grad: true });
  axesCases.push({ name: 'mean axes 1,0 of 3-d', inputs: (r) => [{ shape: [dim(r, 1, 9), dim(r, 1, 11), dim(r, 1, 13)] }], f: (x) => tf.mean(x, [1, 0]), grad: true });
  axesCases.push({ name: 'sum axis 0 int32', inputs: (r) => [{ shape: m2(r), dtype: 'int32', lo: -9, hi: 9 }], f: (x) => tf.sum(x, 0) });
  axesCases.push({ name: 'any / all', inputs: (r) => [{ shape: m2(r), dtype: 'bool', lo: 0, hi: 2 }], f: (x) => [tf.any(x, 1), tf.all(x, 0)] });
  const mm = (ta: boolean, tb: boolean): Case => ({
    name: `matMul${ta ? ' transA' : ''}${tb ? ' transB' : ''}`,
    inputs: (r) => {
      const [m, k, n] = [dim(r, 1, 70), dim(r, 1, 90), dim(r, 1, 60)];
      return [{ shape: ta ? [k, m] : [m, k] }, { shape: tb ? [n, k] : [k, n] }];
    },
    f: (a, b) => tf.matMul(a, b, ta, tb),
    grad: true,
  });
  return [
    ...axesCases,
    mm(false, false), mm(true, false), mm(false, true), mm(true, true),
    { name: 'batched matMul', inputs: (r) => { const [q, m, k, n] = [dim(r, 1, 5), dim(r, 1, 20), dim(r, 1, 20), dim(r, 1, 20)]; return [{ shape: [q, m, k] }, { shape: [q, k, n] }]; }, f: (a, b) => tf.matMul(a, b), grad: true },
    { name: 'batched matMul, one b', inputs: (r) => { const [q, m, k, n] = [dim(r, 2, 5), dim(r, 1, 20), dim(r, 1, 20), dim(r, 1, 20)]; return [{ shape: [q, m, k] }, { shape: [1, k, n] }]; }, f: (a, b) => tf.matMul(a, b) },
    ...(['linear', 'relu', 'elu', 'sigmoid', 'relu6'] as const).map((act): Case => ({
      name: `fused matMul + bias + ${act}`,
      inputs: (r) => { const [m, k, n] = [dim(r, 1, 40), dim(r, 1, 40), dim(r, 1, 40)]; return [{ shape: [m, k] }, { shape: [k, n] }, { shape: [n] }]; },
      f: (a, b, c) => tf.fused.matMul({ a, b, bias: c, activation: act }),
      grad: true,
    })),
    { name: 'cast float32 -> int32, bool', inputs: (r) => [{ shape: m2(r), lo: -5, hi: 5 }], f: (x) => [tf.cast(x, 'int32'), tf.cast(x, 'bool')] },
    { name: 'cast int32 -> float32', inputs: (r) => [{ shape: m2(r), dtype: 'int32', lo: -50, hi: 50 }], f: (x) => tf.cast(x, 'float32') },
    { name: 'reshape', inputs: (r) => [{ shape: [dim(r, 1, 8), 6] }], f: (x) => tf.reshape(x, [-1, 3, 2]), grad: true },
    { name: 'transpose 3-d', inputs: (r) => [{ shape: [dim(r, 1, 8), dim(r, 1, 9), dim(r, 1, 7)] }], f: (x) => tf.transpose(x, [2, 0, 1]), grad: true },
    { name: 'transpose 2-d', inputs: (r) => [{ shape: m2(r) }], f: (x) => tf.transpose(x), grad: true },
    { name: 'slice 2-d', inputs: (r) => [{ shape: [dim(r, 4, 30), dim(r, 4, 30)] }], f: (x) => tf.slice(x, [1, 2], [2, -1]), grad: true },
    { name: 'slice 3-d', inputs: (r) => [{ shape: [dim(r, 3, 9), dim(r, 3, 9), dim(r, 3, 9)] }], f: (x) => tf.slice(x, [1, 0, 2], [1, 2, 1]), grad: true },
    { name: 'gather axis 0', inputs: (r) => { const n = dim(r, 2, 50); return [{ shape: [n, dim(r, 1, 12)] }, { shape: [dim(r, 1, 40)], dtype: 'int32', lo: 0, hi: n }]; }, f: (x, i) => tf.gather(x, i), grad: true },
    { name: 'gather axis 1', inputs: (r) => { const n = dim(r, 2, 12); return [{ shape: [dim(r, 1, 9), n, 3] }, { shape: [dim(r, 1, 20)], dtype: 'int32', lo: 0, hi: n }]; }, f: (x, i) => tf.gather(x, i, 1), grad: true },
    { name: 'oneHot', inputs: (r) => [{ shape: [dim(r, 1, 50)], dtype: 'int32', lo: -1, hi: 7 }], f: (i) => tf.oneHot(i, 6) },
    { name: 'select', inputs: (r) => { const s = m2(r); return [{ shape: s, dtype: 'bool', lo: 0, hi: 2 }, { shape: s }, { shape: s }]; }, f: (c, a, b) => tf.where(c, a, b) },
    { name: 'zerosLike / onesLike / fill', inputs: (r) => [{ shape: m2(r) }], f: (x) => [tf.zerosLike(x), tf.onesLike(x), tf.fill([3, 2], 2.5)] },
    { name: 'addN', inputs: (r) => { const s = m2(r); return [{ shape: s }, { shape: s }, { shape: s }]; }, f: (a, b, c) => tf.addN([a, b, c]), grad: true },
    { name: 'softmax cross-entropy', inputs: (r) => { const s = [dim(r, 1, 40), dim(r, 2, 10)]; return [{ shape: s, lo: 0, hi: 1 }, { shape: s, lo: -3, hi: 3 }]; }, f: (y, p) => tf.losses.softmaxCrossEntropy(y, p), grad: true },
    { name: 'categorical cross-entropy (layers)', inputs: (r) => { const s = [dim(r, 1, 40), dim(r, 2, 10)]; return [{ shape: s, lo: 0, hi: 1 }, { shape: s, lo: 0.05, hi: 1 }]; }, f: (y, p) => tf.metrics.categoricalCrossentropy(y, p), grad: true },
    // The fused loss (cross-entropy.ts) against tfjs-layers' on cpu, values and both gradients;
    // the relu puts exact zeros in (clipped to eps, gradient masked).
    { name: 'categorical cross-entropy (fused)', inputs: (r) => { const s = [dim(r, 1, 40), dim(r, 2, 12)]; return [{ shape: s, lo: 0, hi: 1 }, { shape: s, lo: 0.05, hi: 1 }]; }, f: (y, p) => fusedCategoricalCrossentropy(y, p), grad: true },
    { name: 'categorical cross-entropy (fused, zeros)', inputs: (r) => { const s = [dim(r, 1, 40), dim(r, 2, 12)]; return [{ shape: s, lo: 0, hi: 1 }, { shape: s, lo: 0, hi: 1 }]; }, f: (y, p) => fusedCategoricalCrossentropy(y, tf.relu(tf.sub(p, 0.3))), grad: true },
    { name: 'binary cross-entropy (layers)', inputs: (r) => { const s = [dim(r, 1, 40), 1]; return [{ shape: s, lo: 0, hi: 1 }, { shape: s, lo: 0.05, hi: 0.95 }]; }, f: (y, p) => tf.metrics.binaryCrossentropy(y, p), grad: true },
    { name: 'mean squared error (layers)', inputs: (r) => { const s = [dim(r, 1, 40), 1]; return [{ shape: s }, { shape: s }]; }, f: (y, p) => tf.metrics.meanSquaredError(y, p), grad: true },
  ];
}

export const CASES: Case[] = [...binaryCases(), ...unaryCases(), ...otherCases()];

interface Outcome {
  outs: { values: number[]; shape: number[]; dtype: string }[];
  kernels: string[];
}

async function evaluate(c: Case, specs: Spec[], vals: number[][]): Promise<Outcome> {
  const xs = specs.map((s, i) => tf.tensor(vals[i], s.shape, s.dtype ?? 'float32'));
  try {
    const outs: tf.Tensor[] = [];
    const prof = await tf.profile(() => {
      const y = c.f(...xs);
      outs.push(...(Array.isArray(y) ? y : [y]));
      if (c.grad) {
        const fl = xs.map((x, i) => ((specs[i].dtype ?? 'float32') === 'float32' ? i : -1)).filter((i) => i >= 0);
        const g = tf.grads((...ts: tf.Tensor[]) => {
          const all = xs.slice();
          fl.forEach((i, j) => (all[i] = ts[j]));
          const z = c.f(...all);
          return tf.addN((Array.isArray(z) ? z : [z]).map((t) => tf.sum(tf.cast(t, 'float32'))));
        });
        outs.push(...g(fl.map((i) => xs[i])));
      }
    });
    const res = outs.map((t) => ({ values: Array.from(t.dataSync()), shape: t.shape, dtype: t.dtype }));
    tf.dispose(outs);
    return { outs: res, kernels: prof.kernelNames };
  } finally {
    tf.dispose(xs);
  }
}

/** Every case on cpu and on gpuflow-cuda (which must be registered), from `seed`. */
export async function runKernelChecks(seed = 1, tol = TOLERANCE): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const r = rng(seed);
  for (const c of CASES) {
    const specs = c.inputs(r);
    const vals = specs.map((s) => values(s, r));
    try {
      await tf.setBackend('cpu');
      const want = await evaluate(c, specs, vals);
      await tf.setBackend(GPUFLOW_CUDA);
      const got = await evaluate(c, specs, vals);
      let maxAbs = 0, maxRel = 0, ok = want.outs.length === got.outs.length;
      let error: string | undefined = ok ? undefined : `${got.outs.length} outputs, cpu ${want.outs.length}`;
      want.outs.forEach((w, i) => {
        const g = got.outs[i];
        if (!g) return;
        if (g.dtype !== w.dtype || g.shape.join() !== w.shape.join()) {
          ok = false;
          error = `output ${i}: ${g.dtype} [${g.shape}] against cpu ${w.dtype} [${w.shape}]`;
          return;
        }
        w.values.forEach((v, j) => {
          const e = Math.abs(g.values[j] - v);
          const bad = Number.isNaN(v) !== Number.isNaN(g.values[j]) || e > tol.atol + tol.rtol * Math.abs(v);
          if (!Number.isNaN(e)) {
            maxAbs = Math.max(maxAbs, e);
            maxRel = Math.max(maxRel, e / Math.max(Math.abs(v), 1e-30));
          }
          if (bad) {
            ok = false;
            error ??= `output ${i}[${j}] = ${g.values[j]}, cpu ${v}`;
          }
        });
      });
      results.push({ name: c.name, kernels: got.kernels, ok, maxAbsErr: maxAbs, maxRelErr: maxRel, ...(error ? { error } : {}) });
    } catch (e) {
      results.push({ name: c.name, kernels: [], ok: false, maxAbsErr: NaN, maxRelErr: NaN, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return results;
}
