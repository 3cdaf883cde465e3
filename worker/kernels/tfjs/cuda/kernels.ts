/**
 * The kernels gpuflow-cuda runs on the device: what a dense model's training calls (found by
 * running trials on the cpu backend with a kernel-name spy: docs/tuning.md), each a few ops of
 * native/tf-ops.ts. A kernel returns null where its case is not one the device covers (an int
 * input to a float-only op, a rank beyond MAX_RANK, broadcast batch shapes): register.ts then runs
 * tfjs's cpu kernel instead and counts it, as for a kernel not listed here.
 */
import * as tf from '@tensorflow/tfjs';
import { Bop, DType, isComparison, MAX_RANK, OPT_SLOTS, Rop, TfOp, Uop } from '../../../../native/tf-ops';
import { seedKey } from '../../../../common/philox';
import { dropoutScale } from '../../../../common/tuning/dropout-mask';
import type { GpuflowCudaBackend } from './backend';

type Inputs = Record<string, tf.TensorInfo | undefined>;
type Attrs = Record<string, unknown>;
export type CudaKernel = (b: GpuflowCudaBackend, inputs: Inputs, attrs: Attrs) => tf.TensorInfo | tf.TensorInfo[] | null;

const sizeOf = (shape: number[]) => shape.reduce((a, c) => a * c, 1);
const devType = (dtype: tf.DataType) => (dtype === 'float32' ? DType.float32 : DType.int32);

function input(inputs: Inputs, name: string): tf.TensorInfo {
  const t = inputs[name];
  if (!t) throw new Error(`gpuflow-cuda: input '${name}' missing`);
  return t;
}

/** Strides of `shape` read as `outShape` (numpy broadcasting: 0 on a broadcast axis). */
export function broadcastStrides(shape: number[], outShape: number[]): number[] {
  const r = outShape.length;
  const off = r - shape.length;
  const st = new Array<number>(r).fill(0);
  let s = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    st[d + off] = shape[d] === 1 ? 0 : s;
    s *= shape[d];
  }
  return st;
}

/**
 * Fewer, longer axes with the same element order: axes of length 1 dropped, and an axis merged
 * into the one before it where every operand steps over both as over one (strides[d] =
 * strides[d+1] * shape[d+1]), so a plain add of two same-shape tensors is one flat axis.
 */
export function collapse(shape: number[], strides: number[][]): { shape: number[]; strides: number[][] } {
  const outShape: number[] = [];
  const outStrides: number[][] = strides.map(() => []);
  for (let d = 0; d < shape.length; d++) {
    if (shape[d] === 1) continue;
    const last = outShape.length - 1;
    if (last >= 0 && strides.every((st, c) => outStrides[c][last] === st[d] * shape[d])) {
      outShape[last] *= shape[d];
      strides.forEach((st, c) => (outStrides[c][last] = st[d]));
    } else {
      outShape.push(shape[d]);
      strides.forEach((st, c) => outStrides[c].push(st[d]));
    }
  }
  return { shape: outShape, strides: outStrides };
}

function binary(b: GpuflowCudaBackend, bop: number, x: tf.TensorInfo, y: tf.TensorInfo): tf.TensorInfo | null {
  if (x.dtype !== y.dtype) return null;
  const float = x.dtype === 'float32';
  if (!float && (bop === Bop.Div || bop === Bop.Pow || bop === Bop.EluGrad || bop === Bop.ReluGrad)) return null;
  const outShape = tf.backend_util.assertAndGetBroadcastShape(x.shape, y.shape);
  const c = collapse(outShape, [broadcastStrides(x.shape, outShape), broadcastStrides(y.shape, outShape)]);
  if (c.shape.length > MAX_RANK) return null;
  const outDtype: tf.DataType = isComparison(bop) ? 'bool' : x.dtype === 'bool' ? 'int32' : x.dtype;
  const out = b.makeOutput(outShape, outDtype);
  b.run(TfOp.Binary, [bop, b.idOf(x), b.idOf(y), b.idOf(out), devType(x.dtype), c.shape.length, ...c.shape, ...c.strides[0], ...c.strides[1]]);
  return out;
}

/** Integer inputs are allowed for these; the rest are float-only. */
const INT_UNARY = new Set<number>([Uop.Neg, Uop.Abs, Uop.Square, Uop.Sign, Uop.Relu, Uop.Clip, Uop.Copy]);

function unary(b: GpuflowCudaBackend, uop: number, x: tf.TensorInfo, p0 = 0, p1 = 0): tf.TensorInfo | null {
  if (x.dtype !== 'float32' && (!INT_UNARY.has(uop) || x.dtype === 'bool')) return null;
  const out = b.makeOutput(x.shape, x.dtype);
  b.run(TfOp.Unary, [uop, b.idOf(x), b.idOf(out), sizeOf(x.shape), devType(x.dtype), p0, p1]);
  return out;
}

/** Copy of x with its axes permuted. */
export function transpose(b: GpuflowCudaBackend, x: tf.TensorInfo, perm: number[]): tf.TensorInfo | null {
  const st = tf.util.computeStrides(x.shape).concat(1);
  const c = collapse(perm.map((p) => x.shape[p]), [perm.map((p) => st[p])]);
  if (c.shape.length > MAX_RANK) return null;
  const out = b.makeOutput(perm.map((p) => x.shape[p]), x.dtype);
  b.run(TfOp.Strided, [b.idOf(x), b.idOf(out), c.shape.length, 0, ...c.shape, ...c.strides[0]]);
  return out;
}

/** A reduction over `axis` (tfjs's axis attr): reduced axes moved innermost, then one pass. */
function reduce(b: GpuflowCudaBackend, rop: number, x: tf.TensorInfo, axis: unknown, keepDims: boolean, outDtype: tf.DataType): tf.TensorInfo | null {
  const rank = x.shape.length;
  const axes = tf.util.parseAxisParam(axis as number | number[], x.shape);
  const perm = tf.backend_util.getAxesPermutation(axes, rank);
  // The leading axes (a dense layer's bias gradient sums the batch axis): one pass down the
  // columns instead of a transpose and a row reduction.
  const lead = [...axes].sort((p, q) => p - q);
  if (perm && (rop === Rop.Sum || rop === Rop.Mean) && lead.every((a, k) => a === k)) {
    const rest = x.shape.slice(lead.length);
    const out = b.makeOutput(keepDims ? tf.backend_util.expandShapeToKeepDim(rest, axes) : rest, outDtype);
    b.run(TfOp.ReduceCols, [rop, b.idOf(x), b.idOf(out), sizeOf(x.shape.slice(0, lead.length)), sizeOf(rest), devType(x.dtype)]);
    return out;
  }
  let xt = x;
  if (perm) {
    const t = transpose(b, x, perm);
    if (!t) return null;
    xt = t;
  }
  const [outShape, reduceShape] = tf.backend_util.computeOutAndReduceShapes(xt.shape, tf.backend_util.getInnerMostAxes(axes.length, rank));
  const out = b.makeOutput(keepDims ? tf.backend_util.expandShapeToKeepDim(outShape, axes) : outShape, outDtype);
  b.run(TfOp.Reduce, [rop, b.idOf(xt), b.idOf(out), sizeOf(outShape), sizeOf(reduceShape), devType(x.dtype)]);
  if (xt !== x) b.disposeData(xt.dataId);
  return out;
}

function cast(b: GpuflowCudaBackend, x: tf.TensorInfo, dtype: tf.DataType): tf.TensorInfo | null {
  if (x.dtype === dtype) return b.alias(x, x.shape);
  if (!['float32', 'int32', 'bool'].includes(dtype) || !['float32', 'int32', 'bool'].includes(x.dtype)) return null;
  const out = b.makeOutput(x.shape, dtype);
  b.run(TfOp.Cast, [b.idOf(x), b.idOf(out), sizeOf(x.shape), devType(x.dtype), DType[dtype as 'float32' | 'int32' | 'bool']]);
  return out;
}

function matmul(b: GpuflowCudaBackend, a: tf.TensorInfo, c: tf.TensorInfo, transA: boolean, transB: boolean): tf.TensorInfo | null {
  if (a.dtype !== 'float32' || c.dtype !== 'float32') return null;
  const ra = a.shape.length, rb = c.shape.length;
  const m = transA ? a.shape[ra - 1] : a.shape[ra - 2];
  const k = transA ? a.shape[ra - 2] : a.shape[ra - 1];
  const k2 = transB ? c.shape[rb - 1] : c.shape[rb - 2];
  const n = transB ? c.shape[rb - 2] : c.shape[rb - 1];
  if (k !== k2) throw new Error(`gpuflow-cuda BatchMatMul: inner dimensions ${k} and ${k2} of [${a.shape}] and [${c.shape}] differ`);
  const batchA = sizeOf(a.shape.slice(0, -2)), batchB = sizeOf(c.shape.slice(0, -2));
  const batchShape = tf.broadcast_util.assertAndGetBroadcastShape(a.shape.slice(0, -2), c.shape.slice(0, -2));
  const batch = Math.max(batchA, batchB);
  if (batchA !== batchB && batchA !== 1 && batchB !== 1) return null;
  const out = b.makeOutput([...batchShape, m, n], 'float32');
  b.run(TfOp.Gemm, [b.idOf(a), b.idOf(c), b.idOf(out), batch, m, n, k, +transA, +transB, batchA === 1 ? 0 : m * k, batchB === 1 ? 0 : k * n]);
  return out;
}

const ACTIVATION: Record<string, [number, number] | undefined> = { relu: [Uop.Relu, 0], relu6: [Uop.Relu6, 0], elu: [Uop.Elu, 0], sigmoid: [Uop.Sigmoid, 0] };

/** Applies `f` to a fresh intermediate and frees the intermediate. */
function then(b: GpuflowCudaBackend, t: tf.TensorInfo | null, f: (t: tf.TensorInfo) => tf.TensorInfo | null): tf.TensorInfo | null {
  if (!t) return null;
  const r = f(t);
  b.disposeData(t.dataId);
  return r;
}

const binaryKernel = (bop: number): CudaKernel => (b, i) => binary(b, bop, input(i, 'a'), input(i, 'b'));
const unaryKernel = (uop: number): CudaKernel => (b, i) => unary(b, uop, input(i, 'x'));

/** The kernel name of the fused optimizer step (fused-optimizers.ts runs it; no cpu version). */
export const OPTIMIZER_STEP = 'GpuflowOptimizerStep';

/**
 * One optimizer step over a variable (native/tf-ops.ts Optimizer): inputs x, g and the kind's
 * slots s0, s1; outputs the new x and new slots, fresh buffers (the optimizer assigns them).
 */
function optimizerStep(b: GpuflowCudaBackend, i: Inputs, a: Attrs): tf.TensorInfo[] {
  const kind = Number(a.kind);
  const params = a.params as number[];
  const slots = OPT_SLOTS[kind];
  if (slots === undefined) throw new RangeError(`gpuflow-cuda ${OPTIMIZER_STEP}: unknown optimizer kind ${kind}`);
  if (params.length !== 8) throw new RangeError(`gpuflow-cuda ${OPTIMIZER_STEP}: 8 params expected, got ${params.length}`);
  const x = input(i, 'x'), g = input(i, 'g');
  const ins = [x, g, ...['s0', 's1'].slice(0, slots).map((k) => input(i, k))];
  for (const t of ins)
    if (t.dtype !== 'float32' || sizeOf(t.shape) !== sizeOf(x.shape)) throw new TypeError(`gpuflow-cuda ${OPTIMIZER_STEP}: every input must be float32 of x's ${sizeOf(x.shape)} elements`);
  const outs = ins.filter((_, k) => k !== 1).map(() => b.makeOutput(x.shape, 'float32'));
  const id = (t: tf.TensorInfo | undefined) => (t ? b.idOf(t) : 0);
  b.run(TfOp.Optimizer, [kind, sizeOf(x.shape), b.idOf(x), b.idOf(g), id(ins[2]), id(ins[3]), b.idOf(outs[0]), id(outs[1]), id(outs[2]), ...params]);
  return outs;
}

/** The kernel name of dropout's mask drawn on the device (dropout.ts runs it; no cpu version). */
export const DROPOUT_MASK = 'GpuflowDropoutMask';

/** dropout-mask.ts's mask of `shape` (attrs shape, seed, rate), drawn on the device. */
function dropoutMaskKernel(b: GpuflowCudaBackend, _i: Inputs, a: Attrs): tf.TensorInfo {
  const shape = a.shape as number[];
  const rate = Number(a.rate);
  if (!(rate >= 0 && rate < 1)) throw new RangeError(`gpuflow-cuda ${DROPOUT_MASK}: rate must be in [0, 1), got ${rate}`);
  const [k0, k1] = seedKey(Number(a.seed));
  const out = b.makeOutput(shape, 'float32');
  b.run(TfOp.DropoutMask, [b.idOf(out), sizeOf(shape), k0, k1, rate, dropoutScale(rate)]);
  return out;
}

/**
 * The kernel name of feature standardisation on the device (train.ts scales a trial's training
 * rows after their upload; no cpu version): input x (rows x cols float32), attrs mean and std
 * (cols numbers each), the host scaleX's bytes.
 */
export const SCALE_COLUMNS = 'GpuflowScaleColumns';

function numbers(v: unknown, what: string): number[] {
  if (!Array.isArray(v) || !v.every((n): n is number => typeof n === 'number')) throw new TypeError(`gpuflow-cuda ${SCALE_COLUMNS}: attr ${what} must be an array of numbers`);
  return v;
}

function scaleColumnsKernel(b: GpuflowCudaBackend, i: Inputs, a: Attrs): tf.TensorInfo {
  const x = input(i, 'x');
  const mean = numbers(a.mean, 'mean');
  const std = numbers(a.std, 'std');
  const [rows, cols] = x.shape;
  if (x.dtype !== 'float32' || x.shape.length !== 2 || mean.length !== cols || std.length !== cols) {
    throw new TypeError(`gpuflow-cuda ${SCALE_COLUMNS}: x must be float32 rows x cols with cols means and deviations; got ${x.dtype} [${x.shape.join(', ')}], ${mean.length} means, ${std.length} deviations`);
  }
  const out = b.makeOutput(x.shape, 'float32');
  b.run(TfOp.ScaleColumns, [b.idOf(x), b.idOf(out), rows, cols, ...mean, ...std]);
  return out;
}

/**
 * Kernel names of gradients in one op (gradients.ts routes tfjs's Relu and Softmax gradients to
 * them on gpuflow-cuda; no cpu version): relu's dy * step(x), softmax's dy y - sum(dy y) y.
 */
export const RELU_GRAD = 'GpuflowReluGrad';
export const SOFTMAX_GRAD = 'GpuflowSoftmaxGrad';

function softmaxGrad(b: GpuflowCudaBackend, dy: tf.TensorInfo, y: tf.TensorInfo): tf.TensorInfo | null {
  if (dy.dtype !== 'float32' || y.dtype !== 'float32' || dy.shape.join() !== y.shape.join() || y.shape.length === 0) return null;
  const inner = y.shape[y.shape.length - 1];
  const out = b.makeOutput(y.shape, 'float32');
  b.run(TfOp.SoftmaxGrad, [b.idOf(dy), b.idOf(y), b.idOf(out), inner === 0 ? 0 : sizeOf(y.shape) / inner, inner]);
  return out;
}

/**
 * Kernel names of tfjs-layers' categorical cross-entropy (per row) and its gradient with respect
 * to the probabilities in one op each (cross-entropy.ts; no cpu version): inputs labels, probs
 * (and dy), rows x k float32; attrs lo, hi the clip bounds (float32 values).
 */
export const CROSS_ENTROPY = 'GpuflowCrossEntropy';
export const CROSS_ENTROPY_GRAD = 'GpuflowCrossEntropyGrad';

function crossEntropy(b: GpuflowCudaBackend, i: Inputs, a: Attrs, grad: boolean): tf.TensorInfo {
  const labels = input(i, 'labels'), probs = input(i, 'probs');
  const dy = grad ? input(i, 'dy') : undefined;
  const [rows, k] = probs.shape;
  const lo = Number(a.lo), hi = Number(a.hi);
  if (probs.shape.length !== 2 || labels.shape.join() !== probs.shape.join() || labels.dtype !== 'float32' || probs.dtype !== 'float32' || (dy && (dy.dtype !== 'float32' || dy.shape.join() !== String(rows)))) {
    throw new TypeError(`gpuflow-cuda ${grad ? CROSS_ENTROPY_GRAD : CROSS_ENTROPY}: labels and probs must be float32 rows x k of one shape${grad ? ', dy float32 [rows]' : ''}; got labels ${labels.dtype} [${labels.shape}], probs ${probs.dtype} [${probs.shape}]${dy ? `, dy ${dy.dtype} [${dy.shape}]` : ''}`);
  }
  if (!(lo >= 0 && lo < hi && hi <= 1)) throw new RangeError(`gpuflow-cuda ${CROSS_ENTROPY}: clip bounds must satisfy 0 <= lo < hi <= 1, got ${lo}, ${hi}`);
  const out = b.makeOutput(grad ? probs.shape : [rows], 'float32');
  const rec = [b.idOf(labels), b.idOf(probs), b.idOf(out), rows, k, lo, hi];
  if (dy) b.run(TfOp.CrossEntropyGrad, [b.idOf(dy), ...rec]);
  else b.run(TfOp.CrossEntropy, rec);
  return out;
}

/**
 * The kernel name of an epoch's running loss sum on the device (train-step.ts; no cpu version):
 * inputs acc (optional: the sum so far, float32 [2] holding a double) and loss (a float32
 * scalar), attr n (the batch's rows); output the new sum, float32 [2].
 */
export const LOSS_SUM = 'GpuflowLossSum';

function lossSum(b: GpuflowCudaBackend, i: Inputs, a: Attrs): tf.TensorInfo {
  const acc = i.acc, loss = input(i, 'loss');
  const n = Number(a.n);
  if (loss.dtype !== 'float32' || sizeOf(loss.shape) !== 1 || (acc && (acc.dtype !== 'float32' || sizeOf(acc.shape) !== 2)) || !Number.isInteger(n) || n < 0) {
    throw new TypeError(`gpuflow-cuda ${LOSS_SUM}: loss must be a float32 scalar, acc float32 [2], n a row count; got loss ${loss.dtype} [${loss.shape}], n ${String(a.n)}`);
  }
  const out = b.makeOutput([2], 'float32');
  b.run(TfOp.LossSum, [acc ? b.idOf(acc) : 0, b.idOf(loss), b.idOf(out), n]);
  return out;
}

/**
 * The kernel name of dropout applied on the device (dropout.ts; no cpu version): input x, attrs
 * seed and rate; x times DROPOUT_MASK's mask, which is never stored. Its gradient (gradients.ts)
 * is the same op on dy: the same mask.
 */
export const DROPOUT = 'GpuflowDropout';

function dropoutKernel(b: GpuflowCudaBackend, i: Inputs, a: Attrs): tf.TensorInfo | null {
  const x = input(i, 'x');
  const rate = Number(a.rate);
  if (!(rate >= 0 && rate < 1)) throw new RangeError(`gpuflow-cuda ${DROPOUT}: rate must be in [0, 1), got ${rate}`);
  if (x.dtype !== 'float32') return null;
  const [k0, k1] = seedKey(Number(a.seed));
  const out = b.makeOutput(x.shape, 'float32');
  b.run(TfOp.DropoutApply, [b.idOf(x), b.idOf(out), sizeOf(x.shape), k0, k1, rate, dropoutScale(rate)]);
  return out;
}

export const CUDA_KERNELS: Record<string, CudaKernel> = {
  [DROPOUT]: dropoutKernel,
  [LOSS_SUM]: lossSum,
  [CROSS_ENTROPY]: (b, i, a) => crossEntropy(b, i, a, false),
  [CROSS_ENTROPY_GRAD]: (b, i, a) => crossEntropy(b, i, a, true),
  [RELU_GRAD]: (b, i) => {
    const dy = input(i, 'dy'), x = input(i, 'x');
    return dy.shape.join() === x.shape.join() ? binary(b, Bop.ReluGrad, dy, x) : null;
  },
  [SOFTMAX_GRAD]: (b, i) => softmaxGrad(b, input(i, 'dy'), input(i, 'y')),
  [OPTIMIZER_STEP]: optimizerStep,
  [DROPOUT_MASK]: dropoutMaskKernel,
  [SCALE_COLUMNS]: scaleColumnsKernel,
  Add: binaryKernel(Bop.Add),
  Sub: binaryKernel(Bop.Sub),
  Multiply: binaryKernel(Bop.Mul),
  RealDiv: binaryKernel(Bop.Div),
  Maximum: binaryKernel(Bop.Max),
  Minimum: binaryKernel(Bop.Min),
  Pow: binaryKernel(Bop.Pow),
  SquaredDifference: binaryKernel(Bop.SqDiff),
  Equal: binaryKernel(Bop.Equal),
  NotEqual: binaryKernel(Bop.NotEqual),
  Less: binaryKernel(Bop.Less),
  LessEqual: binaryKernel(Bop.LessEq),
  Greater: binaryKernel(Bop.Greater),
  GreaterEqual: binaryKernel(Bop.GreaterEq),
  LogicalAnd: binaryKernel(Bop.And),
  LogicalOr: binaryKernel(Bop.Or),
  EluGrad: (b, i) => binary(b, Bop.EluGrad, input(i, 'dy'), input(i, 'y')),
  AddN: (b, i) => {
    const ts = Object.values(i).filter((t): t is tf.TensorInfo => t !== undefined);
    let acc = unary(b, Uop.Copy, ts[0]);
    for (const t of ts.slice(1)) acc = then(b, acc, (s) => binary(b, Bop.Add, s, t));
    return acc;
  },
  Neg: unaryKernel(Uop.Neg),
  Abs: unaryKernel(Uop.Abs),
  Square: unaryKernel(Uop.Square),
  Sqrt: unaryKernel(Uop.Sqrt),
  Rsqrt: unaryKernel(Uop.Rsqrt),
  Exp: unaryKernel(Uop.Exp),
  Expm1: unaryKernel(Uop.Expm1),
  Log: unaryKernel(Uop.Log),
  Log1p: unaryKernel(Uop.Log1p),
  Relu: unaryKernel(Uop.Relu),
  Relu6: unaryKernel(Uop.Relu6),
  Sigmoid: unaryKernel(Uop.Sigmoid),
  Tanh: unaryKernel(Uop.Tanh),
  Elu: unaryKernel(Uop.Elu),
  Floor: unaryKernel(Uop.Floor),
  Ceil: unaryKernel(Uop.Ceil),
  Round: unaryKernel(Uop.Round),
  Sign: unaryKernel(Uop.Sign),
  Reciprocal: unaryKernel(Uop.Reciprocal),
  Softplus: unaryKernel(Uop.Softplus),
  Step: (b, i, a) => unary(b, Uop.Step, input(i, 'x'), Number(a.alpha ?? 0)),
  LeakyRelu: (b, i, a) => unary(b, Uop.LeakyRelu, input(i, 'x'), Number(a.alpha ?? 0.2)),
  ClipByValue: (b, i, a) => unary(b, Uop.Clip, input(i, 'x'), Number(a.clipValueMin), Number(a.clipValueMax)),
  Cast: (b, i, a) => cast(b, input(i, 'x'), a.dtype as tf.DataType),
  Identity: (b, i) => b.alias(input(i, 'x'), input(i, 'x').shape),
  Reshape: (b, i, a) => {
    const x = input(i, 'x');
    return b.alias(x, tf.util.inferFromImplicitShape(a.shape as number[], sizeOf(x.shape)));
  },
  ZerosLike: (b, i) => (input(i, 'x').dtype === 'string' || input(i, 'x').dtype === 'complex64' ? null : b.fill(input(i, 'x').shape, 0, input(i, 'x').dtype)),
  OnesLike: (b, i) => (input(i, 'x').dtype === 'string' || input(i, 'x').dtype === 'complex64' ? null : b.fill(input(i, 'x').shape, 1, input(i, 'x').dtype)),
  Fill: (b, _i, a) => (a.dtype === 'string' ? null : b.fill(a.shape as number[], Number(a.value), (a.dtype as tf.DataType | undefined) ?? 'float32')),
  Sum: (b, i, a) => reduce(b, Rop.Sum, input(i, 'x'), a.axis, Boolean(a.keepDims), input(i, 'x').dtype === 'bool' ? 'int32' : input(i, 'x').dtype),
  Mean: (b, i, a) => (input(i, 'x').dtype !== 'float32' ? null : reduce(b, Rop.Mean, input(i, 'x'), a.axis, Boolean(a.keepDims), 'float32')),
  Max: (b, i, a) => reduce(b, Rop.Max, input(i, 'x'), a.reductionIndices, Boolean(a.keepDims), input(i, 'x').dtype),
  Min: (b, i, a) => reduce(b, Rop.Min, input(i, 'x'), a.axis, Boolean(a.keepDims), input(i, 'x').dtype),
  Prod: (b, i, a) => (input(i, 'x').dtype !== 'float32' ? null : reduce(b, Rop.Prod, input(i, 'x'), a.axis, Boolean(a.keepDims), 'float32')),
  ArgMax: (b, i, a) => reduce(b, Rop.ArgMax, input(i, 'x'), [a.axis as number], false, 'int32'),
  ArgMin: (b, i, a) => reduce(b, Rop.ArgMin, input(i, 'x'), [a.axis as number], false, 'int32'),
  Any: (b, i, a) => reduce(b, Rop.Any, input(i, 'x'), a.axis, Boolean(a.keepDims), 'bool'),
  All: (b, i, a) => reduce(b, Rop.All, input(i, 'x'), a.axis, Boolean(a.keepDims), 'bool'),
  Transpose: (b, i, a) => transpose(b, input(i, 'x'), a.perm as number[]),
  Slice: (b, i, a) => {
    const x = input(i, 'x');
    const [begin, size] = tf.slice_util.parseSliceParams(x, a.begin as number[], a.size as number[]);
    const st = tf.util.computeStrides(x.shape).concat(1);
    const offset = begin.reduce((s, v, d) => s + v * st[d], 0);
    const c = collapse(size, [st.slice(0, size.length)]);
    if (c.shape.length > MAX_RANK) return null;
    const out = b.makeOutput(size, x.dtype);
    b.run(TfOp.Strided, [b.idOf(x), b.idOf(out), c.shape.length, offset, ...c.shape, ...c.strides[0]]);
    return out;
  },
  GatherV2: (b, i, a) => {
    const x = input(i, 'x'), idx = input(i, 'indices');
    if (Number(a.batchDims ?? 0) !== 0 || idx.dtype !== 'int32') return null;
    const axis = tf.util.parseAxisParam(a.axis as number, x.shape)[0];
    const out = b.makeOutput([...x.shape.slice(0, axis), ...idx.shape, ...x.shape.slice(axis + 1)], x.dtype);
    b.run(TfOp.Gather, [b.idOf(x), b.idOf(idx), b.idOf(out), sizeOf(x.shape.slice(0, axis)), x.shape[axis], sizeOf(x.shape.slice(axis + 1)), sizeOf(idx.shape)]);
    return out;
  },
  OneHot: (b, i, a) => {
    const idx = input(i, 'indices');
    const dtype = (a.dtype as tf.DataType | undefined) ?? 'int32';
    if (idx.dtype !== 'int32' || dtype === 'string' || dtype === 'complex64') return null;
    const depth = Number(a.depth);
    const out = b.makeOutput([...idx.shape, depth], dtype);
    b.run(TfOp.OneHot, [b.idOf(idx), b.idOf(out), sizeOf(idx.shape), depth, Number(a.onValue ?? 1), Number(a.offValue ?? 0), devType(dtype)]);
    return out;
  },
  Select: (b, i) => {
    const c = input(i, 'condition'), t = input(i, 't'), e = input(i, 'e');
    if (t.dtype !== e.dtype) return null;
    const shape = t.shape;
    // tfjs: the condition has t's shape, or is a vector picking whole rows.
    const cs = c.shape.length === shape.length ? broadcastStrides(c.shape, shape) : [1, ...new Array<number>(shape.length - 1).fill(0)];
    const cl = collapse(shape, [cs, broadcastStrides(t.shape, shape), broadcastStrides(e.shape, shape)]);
    if (cl.shape.length > MAX_RANK) return null;
    const out = b.makeOutput(shape, t.dtype);
    b.run(TfOp.Select, [b.idOf(c), b.idOf(t), b.idOf(e), b.idOf(out), cl.shape.length, ...cl.shape, ...cl.strides[0], ...cl.strides[1], ...cl.strides[2]]);
    return out;
  },
  Softmax: (b, i, a) => {
    const x = input(i, 'logits');
    const dim = Number(a.dim ?? -1);
    if (x.dtype !== 'float32' || (dim !== -1 && dim !== x.shape.length - 1)) return null;
    const inner = x.shape[x.shape.length - 1];
    const out = b.makeOutput(x.shape, 'float32');
    b.run(TfOp.Softmax, [b.idOf(x), b.idOf(out), sizeOf(x.shape) / inner, inner]);
    return out;
  },
  BatchMatMul: (b, i, a) => matmul(b, input(i, 'a'), input(i, 'b'), Boolean(a.transposeA), Boolean(a.transposeB)),
  _FusedMatMul: (b, i, a) => {
    const activation = (a.activation as string | undefined) ?? 'linear';
    const act = ACTIVATION[activation];
    if (activation !== 'linear' && !act) return null;
    if (i.preluActivationWeights) return null;
    let y = matmul(b, input(i, 'a'), input(i, 'b'), Boolean(a.transposeA), Boolean(a.transposeB));
    const bias = i.bias;
    if (bias) y = then(b, y, (t) => binary(b, Bop.Add, t, bias));
    if (act) y = then(b, y, (t) => unary(b, act[0], t, act[1]));
    return y;
  },
};
