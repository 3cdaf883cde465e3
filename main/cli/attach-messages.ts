/**
 * What an attached `gpuflow run` accepts from serve's event stream (main/api/event-stream.ts):
 * its run's progress and its run's result, checked with zod before use (a process boundary). The
 * result is what the local run returns (common/results.ts RunResult plus the service's digest,
 * store id and record problems); the fields the command prints are checked exactly, the rest of
 * the statistics pass through untouched for `--json`.
 */
// zod/mini, as main/api/serve-file.ts: on the attached run's path, the full API's load is not.
import * as z from 'zod/mini';
import type { ArraySummary, ResultValue } from '../../common/results';

// JSON turns a NaN or infinite number into null; the local run prints NaN for it.
const num = z.pipe(
  z.nullable(z.number()),
  z.transform((v: number | null) => v ?? Number.NaN),
);

const summary: z.ZodMiniType<ArraySummary, unknown> = z.object({
  min: num,
  max: num,
  mean: num,
  histogram: z.object({ bins: z.number(), counts: z.array(z.number()) }),
  corner: z.object({ shape: z.array(z.number()), data: z.array(z.number()) }),
});

const resultValue: z.ZodMiniType<ResultValue, unknown> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('scalar'), dtype: z.string(), value: num, exact: z.optional(z.string()), digestDigits: z.optional(z.number()) }),
  z.object({ kind: z.literal('array'), dtype: z.string(), shape: z.array(z.number()), data: z.optional(z.array(num)), summary: z.optional(summary), file: z.optional(z.string()), digestDigits: z.optional(z.number()) }),
  z.object({ kind: z.literal('json'), value: z.unknown() }),
  z.object({ kind: z.literal('table'), rows: z.number(), columns: z.array(z.object({ name: z.string(), type: z.string() })), ipc: z.string(), truncated: z.boolean() }),
]);

const workerStat = z.looseObject({ id: z.string(), kind: z.string(), label: z.string(), virtual: z.boolean(), tasks: z.number(), busyMs: z.number(), backends: z.record(z.string(), z.number()) });

const runStats = z.looseObject({
  tasks: z.number(),
  durationMs: z.number(),
  workers: z.array(workerStat),
  restarts: z.number(),
  leftOut: z.optional(z.array(z.object({ worker: z.string(), reason: z.string() }))),
});

export const attachedResultSchema = z.object({
  runId: z.string(),
  storeId: z.nullable(z.number()),
  status: z.enum(['finished', 'failed', 'cancelled']),
  error: z.optional(z.string()),
  errorNode: z.optional(z.string()),
  digest: z.nullable(z.string()),
  results: z.record(z.string(), resultValue),
  stats: runStats,
  eventsLost: z.nullable(z.string()),
  storeError: z.nullable(z.string()),
});

export type AttachedResult = z.infer<typeof attachedResultSchema>;

/** The stream messages an attached run reads; everything else on the stream is skipped unparsed. */
export const attachMessageSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('progress'), runId: z.string(), done: z.number(), total: z.number() }),
  z.object({ type: z.literal('run-result'), result: attachedResultSchema }),
]);

/** The attached run's first line (main/api/attached-run.ts): its id once it started. */
export const startedSchema = z.object({ runId: z.string(), storeId: z.nullable(z.number()) });
export const refusalSchema = z.object({ error: z.string(), errors: z.optional(z.array(z.string())) });
