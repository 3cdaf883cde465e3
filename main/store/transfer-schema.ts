/**
 * The export file format, as zod schemas: the one place an imported file is checked. Every
 * export embeds the workflow versions its runs ran, so a file alone is enough to replay them.
 * Workflow documents are checked for shape here; their meaning (ops, ports, params) is the
 * engine's validator's job when they are run. Unknown keys in a document are kept, because the
 * document's hash covers them.
 */
import * as z from 'zod';
import { RUN_STATUSES } from '../../common/store-types';
import { WORKFLOW_FORMAT } from '../../common/workflow';

export const EXPORT_FORMAT = 'gpuflow.export/1';

const hash = z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 hex string (64 characters 0-9a-f)');
const time = z.number().int().nonnegative();
const json = z.json();

const node = z.looseObject({
  id: z.string().min(1),
  op: z.string().min(1),
  params: z.record(z.string(), json),
  position: z.looseObject({ x: z.number(), y: z.number() }).optional(),
  label: z.string().optional(),
});

const edge = z.looseObject({
  source: z.string(),
  sourcePort: z.string(),
  target: z.string(),
  targetPort: z.string(),
});

export const workflowDocSchema = z.looseObject({
  format: z.literal(WORKFLOW_FORMAT),
  name: z.string().optional(),
  description: z.string().optional(),
  params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional(),
  nodes: z.array(node),
  edges: z.array(edge),
});

const aggregate = z.object({
  op: z.string(),
  worker: z.string(),
  events: z.number().int().nonnegative(),
  tasks: z.number().int().nonnegative(),
  msTotal: z.number().nonnegative(),
  msMax: z.number().nonnegative(),
  bytesTotal: z.number().int().nonnegative(),
});

export const exportedRunSchema = z.object({
  uuid: z.string().min(1),
  workflowHash: hash,
  params: z.record(z.string(), json),
  seeds: json,
  devices: json,
  backends: json,
  machine: z.string(),
  host: z.string(),
  pid: z.number().int(),
  started: time,
  ended: time.nullable(),
  status: z.enum(RUN_STATUSES),
  resultDigest: z.string().nullable(),
  results: json.nullable(),
  error: z.string().nullable(),
  aggregates: z.array(aggregate).default([]),
  target: json.nullable().default(null),
});

export const exportedWorkflowSchema = z.object({
  hash,
  name: z.string(),
  created: time,
  doc: workflowDocSchema,
});

export const exportDocSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  exported: time,
  workflows: z.array(exportedWorkflowSchema).min(1, 'an export embeds at least one workflow'),
  runs: z.array(exportedRunSchema),
});

export type ExportDoc = z.infer<typeof exportDocSchema>;
export type ExportedRun = z.infer<typeof exportedRunSchema>;

/** `runs[0].status`, from a zod issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(top level)';
}
