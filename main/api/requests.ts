/** Request bodies of the HTTP API, validated before use. */
import * as z from 'zod';
import { BENCH_MAX_REPEAT, BENCH_MAX_WARMUP } from '../../common/api';

const params = z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional();

export const runRequest = z.object({ doc: z.unknown(), params });
export const startRunRequest = z.object({ doc: z.unknown(), params, node: z.string().min(1).max(200).optional(), reuse: z.boolean().optional() });
export const queueRequest = z.object({ doc: z.unknown(), params, node: z.string().min(1).max(200).optional() });
export const benchRequest = z.object({ doc: z.unknown(), params, repeat: z.number().int().min(1).max(BENCH_MAX_REPEAT).optional(), warmup: z.number().int().min(0).max(BENCH_MAX_WARMUP).optional() });
export const benchCancelRequest = z.object({ benchId: z.string().min(1).max(200) });
/** `reason`: what the cancelled run's error says (an attached `gpuflow run` says 'interrupted (SIGINT)', as a local one does). */
export const cancelRunRequest = z.object({ reason: z.string().min(1).max(200).optional() });
export const historyQuery = z.object({
  status: z.enum(['running', 'done', 'failed', 'cancelled', 'interrupted']).optional(),
  workflow: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
});
/** The cluster selector: a Dask address (tcp://host:port, local:N, local-cuda) or null for this workstation. */
export const clusterRequest = z.object({ address: z.string().min(1).max(500).nullable() });
export const clusterTestRequest = z.object({ address: z.string().min(1).max(500) });
