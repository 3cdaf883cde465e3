/**
 * Registry of task handlers beyond fused programs and combines: array ops (matmul blocks, QR
 * steps), dataframe partition ops and tuning trials register here by (spec kind, op name), so the
 * worker's dispatch stays one table and each area keeps its kernels in its own folder.
 */
import { parseArrayOpParams, type ArrayOpParams, type TypedArrayOp } from '../common/array-op-params';
import type { ChunkValue, JsonValue } from '../common/arrays';
import type { WorkerConfig } from '../common/messages';
import { parseTrialOpParams, type TrialOpParams, type TypedTrialOp } from '../common/tuning/op-params';
import type { ArrayBackend } from './kernels/backend';

export interface HandlerContext {
  config: WorkerConfig;
  backends: ArrayBackend[];
  /** Streams a progress or metrics event for this task to main (e.g. a trial's epoch). */
  report(payload: Record<string, JsonValue>): void;
}

export interface HandlerResult {
  value: ChunkValue;
  /** The backend that ran it, recorded with the task. */
  backend: string;
}

export type TaskHandler = (params: Record<string, unknown>, inputs: ChunkValue[], ctx: HandlerContext) => Promise<HandlerResult>;

const handlers = new Map<string, TaskHandler>();

export function registerHandler(kind: 'array-op' | 'df' | 'trial', op: string, handler: TaskHandler): void {
  handlers.set(`${kind}:${op}`, handler);
}

export function findHandler(kind: string, op: string): TaskHandler | undefined {
  return handlers.get(`${kind}:${op}`);
}

/**
 * Registers the handler of an array op whose params are typed (common/array-op-params.ts): the
 * handler gets them parsed by the op's schema, so it reads fields without casts, and a task whose
 * params do not match fails with the op and field named instead of computing with undefined.
 */
export function registerArrayOp<Op extends TypedArrayOp>(
  op: Op,
  handler: (params: ArrayOpParams<Op>, inputs: ChunkValue[], ctx: HandlerContext) => Promise<HandlerResult>,
): void {
  registerHandler('array-op', op, async (params, inputs, ctx) => handler(parseArrayOpParams(op, params), inputs, ctx));
}

/**
 * Registers the handler of a tuning op (common/tuning/op-params.ts): as registerArrayOp, the
 * handler gets its params parsed by the op's schema, and a task that does not match is refused.
 */
export function registerTrialOp<Op extends TypedTrialOp>(
  op: Op,
  handler: (params: TrialOpParams<Op>, inputs: ChunkValue[], ctx: HandlerContext) => Promise<HandlerResult>,
): void {
  registerHandler('trial', op, async (params, inputs, ctx) => handler(parseTrialOpParams(op, params), inputs, ctx));
}
