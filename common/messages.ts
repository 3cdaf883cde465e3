/**
 * Messages between main and a worker process (IPC; structured clone, so typed arrays travel as
 * they are). Both sides parse what they receive with these schemas; a malformed message is a
 * protocol error reported with its path, never acted on.
 *
 * Chunk data moves worker-to-worker over the peer protocol (worker/peer.ts); only the values a
 * run reports (final results) come to main, through `value`.
 */
import * as z from 'zod';
import { chunkValueSchema, jsonValueSchema, taskSpecSchema } from './schemas';

export const workerKindSchema = z.enum(['gpu', 'cpu', 'virtual-gpu']);
export type WorkerKind = z.infer<typeof workerKindSchema>;

export const peerAddressSchema = z.object({ workerId: z.string(), host: z.string(), port: z.number().int().min(1).max(65535) });
export type PeerAddress = z.infer<typeof peerAddressSchema>;

export const workerConfigSchema = z.object({
  id: z.string(),
  kind: workerKindSchema,
  label: z.string(),
  threads: z.number().int().positive(),
  /** Tasks the worker runs at once (GPU workers overlap async kernel calls). */
  concurrency: z.number().int().positive(),
  gpuUuid: z.string().optional(),
  /** Bytes of chunk data this worker may hold before it refuses a task. */
  memoryLimit: z.number().positive(),
  /** Shared secret that peers present to fetch chunks. */
  peerToken: z.string().min(16),
  /** Backends to try, in order of preference. */
  backends: z.array(z.enum(['cuda', 'native-cpu', 'js'])),
  heartbeatMs: z.number().int().positive(),
});
export type WorkerConfig = z.infer<typeof workerConfigSchema>;

export const toWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('init'), config: workerConfigSchema }),
  z.object({
    type: z.literal('execute'),
    runId: z.string(),
    key: z.string(),
    node: z.string(),
    op: z.string(),
    spec: taskSpecSchema,
    /**
     * Each dependency and the peer holding it (null: this worker holds it); `value`: a small
     * output main already has from its `done` (INLINE_VALUE_BYTES), which the worker keeps instead
     * of fetching it from the peer.
     */
    deps: z.array(z.object({ key: z.string(), at: peerAddressSchema.nullable(), value: chunkValueSchema.optional() })),
  }),
  z.object({ type: z.literal('release'), keys: z.array(z.string()) }),
  z.object({ type: z.literal('fetch'), requestId: z.number().int(), key: z.string() }),
  /**
   * The graph main is compiling calls cuBLAS / cuSOLVER (matmul, qr, svd): a GPU worker makes
   * their handles now (and first gemms with GPUFLOW_WARM_GEMM=1), in any phase, beside the compile
   * and its own start (worker/cuda-warmup.ts). Sent at most once per worker; a graph without linear
   * algebra never pays for them.
   */
  z.object({ type: z.literal('warm-libraries') }),
  z.object({ type: z.literal('shutdown') }),
]);
export type ToWorker = z.infer<typeof toWorkerSchema>;

/**
 * Outputs up to this size travel with their task's `done` (issue 30): main hands them on inline in
 * the `execute` of a task on another worker and returns them as results, instead of a peer fetch
 * (a loopback connection each) at every level of a combine tree and a `fetch` round trip for
 * the run's result. A reduction's partial is 24 to a few hundred bytes.
 */
export const INLINE_VALUE_BYTES = 4096;

export const backendStatusSchema = z.object({ name: z.string(), available: z.boolean(), reason: z.string().optional() });

/**
 * A dependency fetched from a peer. `via`: device to device by CUDA IPC, or through host memory
 * (absent in older workers: host); `reason`: why a host transfer did not go by IPC.
 */
export const transferSchema = z.object({ key: z.string(), from: z.string(), bytes: z.number(), ms: z.number(), via: z.enum(['ipc', 'host']).optional(), reason: z.string().optional() });
export type Transfer = z.infer<typeof transferSchema>;

/**
 * Why a task erred, when it is not the task's own fault (absent: the task failed, and so does the run):
 * - `fetch`: an input could not be fetched from its holder (it died); the task runs again.
 * - `memory`: its output would exceed the worker's memory limit; the run fails, naming the node.
 * - `device`: the worker's device is gone or unusable (a CUDA error such as cudaErrorNoDevice or
 *   cudaErrorIllegalAddress, tagged by the native addon); the worker is marked gone and its tasks
 *   run elsewhere.
 */
export const taskErrorCodeSchema = z.enum(['fetch', 'memory', 'device']);
export type TaskErrorCode = z.infer<typeof taskErrorCodeSchema>;

/** Host <-> device traffic of a task run with device-resident data (worker/resident/store.ts DeviceTraffic). */
export const deviceTrafficSchema = z.object({
  /** Inputs read where they already were on the device, and their bytes (uploads avoided). */
  reusedInputs: z.number().int(),
  reusedBytes: z.number(),
  /** Bytes copied host -> device for the task. */
  uploadedBytes: z.number(),
  /** Bytes of the output kept on the device (a download avoided until the value leaves the worker). */
  keptBytes: z.number(),
});
export type DeviceTraffic = z.infer<typeof deviceTrafficSchema>;

export const fromWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), pid: z.number().int(), address: peerAddressSchema, backends: z.array(backendStatusSchema) }),
  z.object({ type: z.literal('heartbeat'), t: z.number(), rss: z.number(), heldBytes: z.number(), heldKeys: z.number().int() }),
  z.object({
    type: z.literal('done'),
    key: z.string(),
    bytes: z.number(),
    backend: z.string(),
    startedAt: z.number(),
    endedAt: z.number(),
    transfers: z.array(transferSchema),
    device: deviceTrafficSchema.optional(),
    /** The output itself when it is a host value of at most INLINE_VALUE_BYTES (a partial, a scalar). */
    value: chunkValueSchema.optional(),
  }),
  z.object({ type: z.literal('error'), key: z.string(), message: z.string(), code: taskErrorCodeSchema.optional() }),
  /** Progress of a running task (a trial's epoch, rows read): relayed to the event stream. */
  z.object({ type: z.literal('progress'), key: z.string(), payload: z.record(z.string(), jsonValueSchema) }),
  z.object({ type: z.literal('value'), requestId: z.number().int(), key: z.string(), value: chunkValueSchema.nullable(), error: z.string().optional() }),
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warn', 'error']), message: z.string() }),
]);
export type FromWorker = z.infer<typeof fromWorkerSchema>;

/** Formats a zod error as "path: message" lines. */
export function formatIssues(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
}
