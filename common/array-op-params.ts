/**
 * Typed task params of array ops: one zod schema per op, shared by the compiler in main (which
 * builds the spec with `arrayOpSpec`, so a misspelt or missing param is a type error there) and
 * the worker (whose handlers, registered with `registerArrayOp` in worker/handlers.ts, receive
 * the params parsed by the same schema: a renamed param is a type error on both sides, and a
 * message that does not match is refused at the worker's boundary with the op and field named).
 *
 * Every array op main emits is typed here. To add one: add its schema below, build its spec with
 * `arrayOpSpec` in main and register its handler with `registerArrayOp` (CONTRIBUTING.md, "Typed
 * task params").
 */
import * as z from 'zod';
import { opTable, type OpOf, type OpParamsOf } from './op-schemas';
import { dtypeSchema } from './schemas';

const count = z.number().int().nonnegative();
const dims = z.array(count);

/** One region of an assembled block: `count` elements from `srcStart` of input `dep` to `dstStart`. */
export const pieceSchema = z.object({ dep: count, srcStart: dims, count: dims, dstStart: dims });

const SCHEMAS = {
  /** A block made of regions of other blocks (rechunk, a summary's corner). */
  assemble: z.object({ shape: dims, dtype: dtypeSchema, pieces: z.array(pieceSchema) }),
  /** A 2-D block transposed. */
  transpose: z.object({}),
  /** x[mask] of one block (input 0: x, input 1: its bool mask of the same shape): the kept values in C order, 1-D. */
  'mask-select': z.object({}),
  /** x[..., m] of one block along `axis` (input 0: x, input 1: the 1-D bool mask of that axis's block): the kept positions, other axes as they are. */
  'mask-select-axis': z.object({ axis: count }),
  /** Input 0 as it is when input 1 (an element count, 0-d) is not zero; else fails with `error` (min of an empty selection). */
  'require-elements': z.object({ error: z.string() }),
  /** Rows [start[0], start[0] + shape[0]) of a .npy file, checked against the size it had at compile time. */
  'npy-read': z.object({ path: z.string(), dataStart: count, fileBytes: count, dtype: dtypeSchema, fileShape: dims, start: dims, shape: dims }),
  /** Every block of an array (in C order over the block grid) written to one .npy file. */
  'npy-save': z.object({ path: z.string(), shape: dims, chunks: z.array(dims), dtype: dtypeSchema }),
  // The randomized SVD's tasks (main/engine/ops/arrays-randomized.ts, worker/kernels/arrays/randomized-handlers.ts).
  /** A row block times the n x k Gaussian test matrix of `seed` (regenerated in the task). */
  'rs-sketch': z.object({ k: count.positive(), seed: count }),
  /** op(A) B, with op = transpose when `ta`. */
  'rs-mm': z.object({ ta: z.boolean() }),
  /** The sum of same-shape partials; the tree's root then orthonormalises it or takes its top-`rank` SVD. */
  'rs-sum': z.object({ then: z.enum(['none', 'orth', 'svd']), rank: count.positive() }),
  /** A row block of U: Q_i times the small SVD's u. */
  'rs-u': z.object({}),
  // Linear algebra (main/engine/ops/arrays-linalg.ts, worker/kernels/arrays/linalg-handlers.ts).
  /** One C block of C = A B: the sum over l < k of A(i, l) B(l, j); inputs are the k A blocks, then the k B blocks. */
  matmul: z.object({ k: count.positive() }),
  /** TSQR's QR of one row block. */
  'qr-block': z.object({}),
  /** The QR of the stacked R factors, and the SVD of its R when `svd`. */
  'qr-top': z.object({ svd: z.boolean() }),
  /** Row block `index` of Q (of U when `svd`): the block's factor times its share of the top's Q. */
  'qr-combine': z.object({ index: count, svd: z.boolean() }),
  /** QR (or the SVD when `svd`) of all row blocks stacked, in one task. */
  'factor-whole': z.object({ svd: z.boolean() }),
  /** The array `name` of a bundle (q, r, u, s, vt). */
  pick: z.object({ name: z.string().min(1) }),
  // NumPy-style nodes (arrays-scan.ts, arrays-join.ts, arrays-stats.ts; worker numpy-handlers.ts).
  /** cumsum / cumprod of a block along `axis`, continuing from the previous block's result. */
  cumulate: z.object({ axis: count, op: z.enum(['sum', 'prod']), dtype: dtypeSchema }),
  /** One block of a C-order reshape, read from the input blocks `depBlocks` (its inputs, in that order). */
  reshape: z.object({ inShape: dims, inChunks: z.array(dims), depBlocks: z.array(dims), outShape: dims, start: dims, shape: dims, dtype: dtypeSchema }),
  /** numpy.histogram's counts of one block over `bins` equal bins of [lo, hi]. */
  histogram: z.object({ bins: count.positive(), lo: z.number(), hi: z.number() }),
  /** numpy.histogram's `bins + 1` edges of [lo, hi]. */
  'histogram-edges': z.object({ bins: count.positive(), lo: z.number(), hi: z.number() }),
  /** The element-wise sum of same-length arrays (a histogram's counts). */
  'sum-arrays': z.object({}),
  /** numpy.percentile's 'linear' method over every element of the inputs; each q in [0, 1]. */
  percentile: z.object({ q: z.array(z.number().min(0).max(1)).min(1) }),
  // Large-array summaries (main/engine/compile/summary-lower.ts, worker summary-handlers.ts).
  /** [min, max, sum, count] of one block. */
  'summary-stats': z.object({}),
  /** The stats of several partials combined. */
  'summary-stats-combine': z.object({}),
  /** Counts of one block over `bins` equal bins between the combined min and max. */
  'summary-hist': z.object({ bins: count.positive() }),
  /** The counts of several partials summed. */
  'summary-hist-combine': z.object({}),
  /** stats, hist and corner as one bundle. */
  'summary-bundle': z.object({}),
  /** numpy.percentile of each lane along `axis` of one block holding the whole axis; q in [0, 1]; the q axis comes first. */
  'percentile-axis': z.object({ q: z.array(z.number().min(0).max(1)), axis: count, dtype: dtypeSchema }),
  /** dask.array.topk along `axis` of one block holding the whole axis: k > 0 the largest first, k < 0 the smallest first. */
  'topk-axis': z.object({ k: z.number().int().refine((v) => v !== 0, 'k must not be 0'), axis: count }),
};

/** The array ops' table (common/op-schemas.ts): the guard, main's spec builder, the worker's parser. */
export const ARRAY_OP_TABLE = opTable('array-op', SCHEMAS);
export const { schemas: ARRAY_OP_PARAMS, has: isTypedArrayOp, spec: arrayOpSpec, parse: parseArrayOpParams } = ARRAY_OP_TABLE;
export type TypedArrayOp = OpOf<typeof ARRAY_OP_TABLE>;
export type ArrayOpParams<Op extends TypedArrayOp> = OpParamsOf<typeof ARRAY_OP_TABLE, Op>;
