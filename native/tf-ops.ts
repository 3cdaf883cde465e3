/**
 * The op codes and argument records of the addon's tfjs kernels (native/src/cuda/tf_kernels.cu,
 * tfRun(op, args)): one Float64Array of numbers per op, buffer ids included. The backend
 * (worker/kernels/tfjs/cuda/) writes these records; the fake device (native/fake-tf-ops.ts) and the
 * CUDA side read them. Every buffer holds 4-byte elements: float32, or int32 for int32 and bool.
 *
 *   Unary    uop, x, out, n, dtype, p0, p1
 *   Cast     x, out, n, from, to                       (dtype codes, bool = 2)
 *   Binary   bop, a, b, out, dtype, rank, shape[rank], aStrides[rank], bStrides[rank]
 *   Select   cond, a, b, out, rank, shape, cStrides, aStrides, bStrides
 *   Reduce   rop, x, out, outer, inner, dtype          (over the innermost axis)
 *   Strided  x, out, rank, offset, shape, strides      (out[i] = x[offset + sum idx_d strides_d])
 *   Gather   x, indices, out, outer, axisLen, inner, nIdx
 *   Gemm     a, b, out, batch, m, n, k, transA, transB, strideA, strideB   (float32, row-major)
 *   Fill     out, n, value, dtype
 *   OneHot   indices, out, n, depth, on, off, dtype
 *   Softmax  x, out, outer, inner                      (float32, over the innermost axis)
 *   Optimizer kind, n, x, g, s0, s1, outX, outS0, outS1, p[8]   (float32; a slot the kind lacks is id 0)
 *            Sgd      p0 = -lr                                   x' = p0 g + x
 *            Momentum p0 = -lr, p1 momentum, p2 nesterov (0/1)   a' = p1 a + g, x' = p0 a' + x
 *                                                                (nesterov: x' = p0 (g + p1 a') + x)
 *            Adam     p0 = -lr, p1 b1, p2 1-b1, p3 b2, p4 1-b2, p5 eps, p6 1-b1^t, p7 1-b2^t
 *                     m' = p1 m + p2 g, v' = p3 v + p4 g², x' = (m'/p6) / (sqrt(v'/p7) + p5) p0 + x
 *            RMSprop  p0 lr, p1 decay, p2 1-decay, p3 momentum, p4 eps
 *                     ms' = p1 ms + p2 g², mom' = p3 mom + p0 g / sqrt(ms' + p4), x' = x - mom'
 *   DropoutMask out, n, k0, k1, rate, scale     out[i] = u_i > rate ? scale : 0, u_i the float32
 *            uniform of word i % 4 of Philox block i / 4 under key (k0, k1) (docs/random.md)
 *   ScaleColumns x, out, rows, cols, mean[cols], std[cols]   out[r, c] = (x[r, c] - mean[c]) / std[c]
 *            in doubles, rounded once to float32 (worker/kernels/tfjs/scaling.ts scaleX's bytes)
 *   ReduceCols rop, x, out, rows, cols, dtype     out[c] = Sum or Mean over r of x[r, c] (the leading
 *            axes reduced in one pass, without a transpose first: a dense layer's bias gradient)
 *   SoftmaxGrad dy, y, out, outer, inner          out = dy y - (sum over the row of dy y) y, float32,
 *            tfjs's softmax gradient in one op (the row sum in doubles, rounded once, as cpu's Sum)
 *   Binary's ReluGrad (a = dy, b = x)             dy * step(x): tfjs's relu gradient in one op
 *   CrossEntropy labels, probs, out, rows, k, lo, hi   out[r] = tfjs-layers' categorical cross-entropy
 *            of row r: q = p / sum(p), c = clip(q, lo, hi), -sum(t log c), float32 step by step
 *   CrossEntropyGrad dy, labels, probs, out, rows, k, lo, hi   its gradient with respect to probs,
 *            the chain of tfjs's op gradients (neg, sum, mul, log, clip, div) in one op
 *   DropoutApply x, out, n, k0, k1, rate, scale   out[i] = x[i] * DropoutMask's element i (float32),
 *            the mask never stored: dropout's forward, and on dy its gradient, in one op
 *   LossSum  acc, loss, out, n                      out (2 float32 elements holding one double) =
 *            acc's double (0 for acc id 0) + double(loss[0]) * n: an epoch's sum of batch losses
 *            times rows, in the host's order and rounding, kept on the device until the epoch ends
 */
export const TfOp = { Unary: 1, Cast: 2, Binary: 3, Select: 4, Reduce: 5, Strided: 6, Gather: 7, Gemm: 8, Fill: 9, OneHot: 10, Softmax: 11, Optimizer: 12, DropoutMask: 13, ScaleColumns: 14, ReduceCols: 15, SoftmaxGrad: 16, CrossEntropy: 17, CrossEntropyGrad: 18, LossSum: 19, DropoutApply: 20 } as const;

/** Optimizer kinds of TfOp.Optimizer, and the slots (state buffers per variable) each keeps. */
export const OptKind = { Sgd: 0, Momentum: 1, Adam: 2, Rmsprop: 3 } as const;
export const OPT_SLOTS: Record<number, number> = { [OptKind.Sgd]: 0, [OptKind.Momentum]: 1, [OptKind.Adam]: 2, [OptKind.Rmsprop]: 2 };

/** Element types of device buffers (bool is an int32 of 0 / 1 on the device). */
export const DType = { float32: 0, int32: 1, bool: 2 } as const;

export const Uop = {
  Neg: 0, Abs: 1, Square: 2, Sqrt: 3, Rsqrt: 4, Exp: 5, Log: 6, Log1p: 7, Relu: 8, Sigmoid: 9, Tanh: 10, Elu: 11, Step: 12, Floor: 13, Ceil: 14,
  Round: 15, Sign: 16, Reciprocal: 17, Clip: 18, Softplus: 19, Relu6: 20, LeakyRelu: 21, Expm1: 22, Copy: 23,
} as const;

export const Bop = {
  Add: 0, Sub: 1, Mul: 2, Div: 3, Max: 4, Min: 5, Pow: 6, SqDiff: 7, Equal: 8, NotEqual: 9, Less: 10, LessEq: 11, Greater: 12, GreaterEq: 13,
  And: 14, Or: 15, EluGrad: 16, ReluGrad: 17,
} as const;

export const Rop = { Sum: 0, Max: 1, Min: 2, Prod: 3, Mean: 4, ArgMax: 5, ArgMin: 6, Any: 7, All: 8 } as const;

/** The most axes an element-wise op, select or strided copy takes (the CUDA side's kMaxRank). */
export const MAX_RANK = 6;

/** Binary ops whose output is bool. */
export const isComparison = (bop: number): boolean => bop >= Bop.Equal && bop <= Bop.Or;
