/**
 * What a stored run says of the Dask cluster it ran on (runs.target, written by DaskTarget.record)
 * read back for `gpuflow show` and `history`: validated, since the store is a boundary (an older
 * or hand-edited row is shown as "unreadable", never trusted).
 */
import * as z from 'zod';

export const daskRecordSchema = z.object({
  kind: z.literal('dask'),
  target: z.string(),
  scheduler: z.string(),
  python: z.string(),
  versions: z.record(z.string(), z.string().nullable()),
  workers: z.array(z.object({ name: z.string(), host: z.string(), nthreads: z.number(), memory_limit: z.number(), gpus: z.number() })),
});
export type DaskRecord = z.infer<typeof daskRecordSchema>;

/** The record, or null for a run on this workstation (no target) and for one that does not parse. */
export function daskRecordOf(target: unknown): DaskRecord | null {
  if (target === null || target === undefined) return null;
  const r = daskRecordSchema.safeParse(target);
  return r.success ? r.data : null;
}

/** history's target column: 'local', or the Dask address as given. */
export function targetLabel(target: unknown): string {
  if (target === null || target === undefined) return 'local';
  return daskRecordOf(target)?.target ?? 'dask (unreadable)';
}

/** show's target line for a Dask run: scheduler, versions, workers. */
export function daskTargetText(r: DaskRecord): string {
  const v = (k: string) => `${k} ${r.versions[k] ?? '?'}`;
  const workers = r.workers.map((w) => `${w.name} (${w.host || '?'}, ${w.nthreads} thread${w.nthreads === 1 ? '' : 's'}${w.gpus ? `, ${w.gpus} GPU${w.gpus === 1 ? '' : 's'}` : ''})`);
  return `Dask cluster ${r.scheduler}${r.target !== r.scheduler ? ` (${r.target})` : ''}; python ${r.python}, ${v('dask')}, ${v('distributed')}; ${r.workers.length} worker${r.workers.length === 1 ? '' : 's'}: ${workers.join(', ') || '-'}`;
}
