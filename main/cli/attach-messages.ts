/**
 * What an attached `gpuflow run` accepts from serve's event stream (main/api/event-stream.ts):
 * its run's progress and its run's result, checked with zod before use (a process boundary). The
 * result is what the local run returns (common/results.ts RunResult plus the service's digest,
 * store id and record problems); the fields the command prints are checked exactly, the rest of
 * the statistics pass through untouched for `--json`.
 */
import * as z from 'zod';
import type { ArraySummary, ResultValue } from '../../common/results';

// JSON turns a NaN or infinite number into null; the local run prints NaN for it.
const num = z.number().nullable().transform((v) => v ?? Number.NaN);

const summary: z.ZodType<ArraySummary, unknown> = z.object({
  min: num,
  max: num,
  mean: num,
  histogram: z.object({ bins: z.number(), counts: z.array(z.number()) }),
  corner: z.object({ shape: z.array(z.number()), data: z.array(z.number()) }),
});

const resultValue: z.ZodType<ResultValue, unknown> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('scalar'), dtype: z.string(), value: num, exact: z.string().optional(), digestDigits: z.number().optional() }),
  z.object({ kind: z.literal('array'), dtype: z.string(), shape: z.array(z.number()), data: z.array(num).optional(), summary: summary.optional(), file: z.string().optional(), digestDigits: z.number().optional() }),
  z.object({ kind: z.literal('json'), value: z.unknown() }),
  z.object({ kind: z.literal('table'), rows: z.number(), columns: z.array(z.object({ name: z.string(), type: z.string() })), ipc: z.string(), truncated: z.boolean() }),
]);

const workerStat = z.object({ id: z.string(), kind: z.string(), label: z.string(), virtual: z.boolean(), tasks: z.number(), busyMs: z.number(), backends: z.record(z.string(), z.number()) }).passthrough();

const runStats = z
  .object({
    tasks: z.number(),
    durationMs: z.number(),
    workers: z.array(workerStat),
    restarts: z.number(),
    leftOut: z.array(z.object({ worker: z.string(), reason: z.string() })).optional(),
  })
  .passthrough();

export const attachedResultSchema = z.object({
  runId: z.string(),
  storeId: z.number().nullable(),
  status: z.enum(['finished', 'failed', 'cancelled']),
  error: z.string().optional(),
  errorNode: z.string().optional(),
  digest: z.string().nullable(),
  results: z.record(z.string(), resultValue),
  stats: runStats,
  eventsLost: z.string().nullable(),
  storeError: z.string().nullable(),
});

export type AttachedResult = z.infer<typeof attachedResultSchema>;

/** The stream messages an attached run reads; everything else on the stream is skipped unparsed. */
export const attachMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), runId: z.string(), done: z.number(), total: z.number() }).passthrough(),
  z.object({ type: z.literal('run-result'), result: attachedResultSchema }),
]);

export const startedSchema = z.object({ runId: z.string(), storeId: z.number().nullable() });
export const refusalSchema = z.object({ error: z.string(), errors: z.array(z.string()).optional() });
export const clusterSchema = z.object({ target: z.string().nullable() }).passthrough();
