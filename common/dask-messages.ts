/**
 * The JSON-lines protocol between main and the Dask bridge (`python -m gpuflow_dask.bridge`),
 * as agreed in docs/dask.md ("Protocol"). Main validates every line the bridge writes with these
 * schemas (a malformed line is a protocol error naming its path, never acted on); the Python side
 * validates what main writes the same way (python/gpuflow_dask/messages.py).
 */
import * as z from 'zod';
import { jsonValueSchema } from './schemas';

export const DASK_PROTOCOL = 1;

const b64 = z.string();
export const daskDtypeSchema = z.enum(['float64', 'float32', 'int32', 'int64', 'bool']);

export const daskWorkerSchema = z.object({
  name: z.string(),
  address: z.string(),
  host: z.string(),
  pid: z.number().int().nullable(),
  nthreads: z.number().int().nonnegative(),
  memory_limit: z.number().nonnegative(),
  gpus: z.array(z.object({ name: z.string(), memory: z.number().nonnegative() })),
  gpuflow: z.boolean(),
});
export type DaskWorker = z.infer<typeof daskWorkerSchema>;

const wireArraySchema = z.object({ dtype: daskDtypeSchema, shape: z.array(z.number().int().nonnegative()), data: b64 });
export type WireArray = z.infer<typeof wireArraySchema>;

export const wireColumnSchema = z.object({
  name: z.string(),
  type: z.enum(['float64', 'float32', 'int32', 'int64', 'bool', 'utf8', 'timestamp[ms]']),
  data: b64.optional(),
  values: z.array(z.string().nullable()).optional(),
  valid: b64.optional(),
});
export type WireColumn = z.infer<typeof wireColumnSchema>;

/** A task output on the wire (mirrors common/arrays.ts ChunkValue). */
export const wireValueSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('array'), ...wireArraySchema.shape }),
  z.object({ kind: z.literal('partial'), op: z.enum(['sum', 'mean', 'min', 'max', 'var', 'std', 'argmin', 'argmax', 'prod', 'nanprod', 'nanmin', 'nanmax', 'nanmean']), shape: z.array(z.number().int().nonnegative()), fields: z.record(z.string(), b64) }),
  z.object({ kind: z.literal('table'), rows: z.number().int().nonnegative(), columns: z.array(wireColumnSchema) }),
  z.object({ kind: z.literal('json'), value: jsonValueSchema }),
  z.object({ kind: z.literal('arrays'), arrays: z.record(z.string(), wireArraySchema) }),
]);
export type WireValue = z.infer<typeof wireValueSchema>;

export const daskBackendSchema = z.string();

export const fromBridgeSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ready'),
    protocol: z.number().int(),
    python: z.string(),
    versions: z.record(z.string(), z.string().nullable()),
    capi: z.object({ cpu: z.boolean(), cuda: z.boolean(), why: z.string().nullable().optional() }),
  }),
  z.object({ type: z.literal('connected'), id: z.string(), scheduler: z.string(), dashboard: z.string().nullable(), workers: z.array(daskWorkerSchema) }),
  z.object({ type: z.literal('workers'), id: z.string(), workers: z.array(daskWorkerSchema) }),
  z.object({ type: z.literal('worker'), event: z.enum(['added', 'removed']), worker: daskWorkerSchema, time: z.number() }),
  z.object({
    type: z.literal('task'),
    run: z.string(),
    key: z.string(),
    worker: z.string(),
    thread: z.number().int().nullable().optional(),
    start: z.number(),
    stop: z.number(),
    status: z.enum(['done', 'erred']),
    nbytes: z.number().nullable().optional(),
    backend: daskBackendSchema.nullable().optional(),
    error: z.string().optional(),
  }),
  z.object({ type: z.literal('transfer'), run: z.string(), key: z.string(), from: z.string(), to: z.string(), start: z.number(), stop: z.number(), bytes: z.number().nonnegative() }),
  z.object({
    type: z.literal('memory'),
    time: z.number(),
    workers: z.record(z.string(), z.object({ memory: z.number(), limit: z.number(), cpu: z.number(), gpu: z.number().nullable().optional() })),
  }),
  z.object({ type: z.literal('result'), id: z.string(), values: z.record(z.string(), wireValueSchema) }),
  z.object({ type: z.literal('done'), id: z.string() }),
  z.object({ type: z.literal('cancelled'), id: z.string() }),
  z.object({
    type: z.literal('failed'),
    id: z.string(),
    code: z.enum(['task-error', 'unsupported-op', 'worker-missing-package', 'no-workers', 'no-progress', 'worker-restarting', 'scheduler-lost', 'internal']),
    message: z.string(),
    key: z.string().nullable().optional(),
    node: z.string().nullable().optional(),
  }),
  /** Something the user should see now (a run waiting for workers); not an error. */
  z.object({ type: z.literal('notice'), id: z.string().nullable(), message: z.string() }),
  /** The scheduler is gone: the target is disconnected, the next run reconnects. */
  z.object({ type: z.literal('lost'), scheduler: z.string(), message: z.string() }),
  z.object({
    type: z.literal('error'),
    id: z.string().nullable(),
    code: z.enum(['unreachable', 'no-distributed', 'version', 'bad-message', 'local-cuda-missing', 'internal']),
    message: z.string(),
  }),
]);
export type FromBridge = z.infer<typeof fromBridgeSchema>;

/** A task as it goes to the bridge: common/tasks.ts TaskDef, a program spec with its encoded `code`. */
export interface WireTask {
  key: string;
  deps: string[];
  spec: Record<string, unknown>;
  resource: string;
  node: string;
  op: string;
  outBytes: number;
  workBytes: number;
}

/** A tls:// scheduler's files (PEM paths): distributed.security.Security on the bridge's side. */
export interface DaskTls {
  ca: string;
  cert: string;
  key: string;
}

export type ToBridge =
  | { type: 'connect'; id: string; target: string; timeout_s: number; wait_s?: number; tls?: DaskTls }
  | { type: 'workers'; id: string }
  | { type: 'submit'; id: string; graph: { tasks: WireTask[]; outputs: string[] } }
  | { type: 'cancel'; id: string }
  /** `fast`: end a cluster the bridge started at once (gpuflow run, which exits next), not gracefully. */
  | { type: 'shutdown'; fast?: boolean };
