/**
 * Typed task params of array ops: one zod schema per op, shared by the compiler in main (which
 * builds the spec with `arrayOpSpec`, so a misspelt or missing param is a type error there) and
 * the worker (whose handlers, registered with `registerArrayOp` in worker/handlers.ts, receive
 * the params parsed by the same schema: a renamed param is a type error on both sides, and a
 * message that does not match is refused at the worker's boundary with the op and field named).
 *
 * Typed so far: rechunk's assemble, transpose, the .npy reader and writer, the randomized SVD, percentile and topk along an axis. To
 * type another op: add its schema below, build its spec with `arrayOpSpec` in main and register
 * its handler with `registerArrayOp` (CONTRIBUTING.md, "Typed task params").
 */
import * as z from 'zod';
import { formatIssues } from './messages';
import { dtypeSchema } from './schemas';
import type { TaskSpec } from './tasks';

const count = z.number().int().nonnegative();
const dims = z.array(count);

/** One region of an assembled block: `count` elements from `srcStart` of input `dep` to `dstStart`. */
export const pieceSchema = z.object({ dep: count, srcStart: dims, count: dims, dstStart: dims });

const SCHEMAS = {
  /** A block made of regions of other blocks (rechunk, a summary's corner). */
  assemble: z.object({ shape: dims, dtype: dtypeSchema, pieces: z.array(pieceSchema) }),
  /** A 2-D block transposed. */
  transpose: z.object({}),
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
  /** numpy.percentile of each lane along `axis` of one block holding the whole axis; q in [0, 1]; the q axis comes first. */
  'percentile-axis': z.object({ q: z.array(z.number().min(0).max(1)), axis: count, dtype: dtypeSchema }),
  /** dask.array.topk along `axis` of one block holding the whole axis: k > 0 the largest first, k < 0 the smallest first. */
  'topk-axis': z.object({ k: z.number().int().refine((v) => v !== 0, 'k must not be 0'), axis: count }),
};

/** Each typed op's params, as TypeScript sees them (inferred from the schemas: one definition). */
export type ArrayOpParamMap = { [Op in keyof typeof SCHEMAS]: z.infer<(typeof SCHEMAS)[Op]> };
export type TypedArrayOp = keyof ArrayOpParamMap;
export type ArrayOpParams<Op extends TypedArrayOp> = ArrayOpParamMap[Op];

/** The schemas, typed so that one indexed by a generic op parses to that op's params. */
export const ARRAY_OP_PARAMS: { [Op in TypedArrayOp]: z.ZodType<ArrayOpParamMap[Op]> } = SCHEMAS;

/** Whether an array op's params are typed here (the others still travel as a plain record). */
export function isTypedArrayOp(op: string): op is TypedArrayOp {
  return Object.hasOwn(ARRAY_OP_PARAMS, op);
}

/** The task spec of a typed array op, as main's compiler emits it. */
export function arrayOpSpec<Op extends TypedArrayOp>(op: Op, params: ArrayOpParams<Op>): TaskSpec {
  return { kind: 'array-op', op, params };
}

/** The params of a received task, checked against its op's schema; the error names the op and field. */
export function parseArrayOpParams<Op extends TypedArrayOp>(op: Op, params: unknown): ArrayOpParams<Op> {
  const schema: z.ZodType<ArrayOpParams<Op>> = ARRAY_OP_PARAMS[op];
  const r = schema.safeParse(params);
  if (!r.success) throw new Error(`array-op '${op}': params do not match its schema: ${formatIssues(r.error)}`);
  return r.data;
}
