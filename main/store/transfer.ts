/**
 * Export and import of workflows and runs as JSON files (format in transfer-schema.ts). Runs keep
 * their uuid, so importing a file twice adds nothing the second time. A run that was still
 * 'running' when exported is imported as 'interrupted': its process is not on this machine.
 * Files are written to a temporary name and renamed, so an interrupted export never leaves half
 * a file under the chosen name. Imports are checked completely before anything is written, and
 * written in one transaction.
 */
import { readFileSync } from 'node:fs';
import { writeFileNoFollow } from '../../common/safe-files';
import { contentHash } from '../../common/digest';
import type { WorkflowDoc } from '../../common/workflow';
import { guarded, StoreError } from './errors';
import type { Store } from './store';
import { EXPORT_FORMAT, exportDocSchema, formatPath, type ExportDoc, type ExportedRun } from './transfer-schema';

/** An export of workflow version `hash` alone. */
export function exportWorkflow(store: Store, hash: string): ExportDoc {
  const wf = store.getWorkflowVersion(hash);
  if (!wf) throw new StoreError('not-found', store.path, `No workflow version ${hash} in ${store.path}.`);
  return {
    format: EXPORT_FORMAT,
    exported: Date.now(),
    workflows: [{ hash: wf.hash, name: wf.name, created: wf.created, doc: wf.doc as ExportDoc['workflows'][number]['doc'] }],
    runs: [],
  };
}

/** An export of runs `ids`, each with its workflow version embedded. */
export function exportRuns(store: Store, ids: readonly number[]): ExportDoc {
  const workflows = new Map<string, ExportDoc['workflows'][number]>();
  const runs: ExportedRun[] = ids.map((id) => {
    const run = store.getRun(id);
    if (!run) throw new StoreError('not-found', store.path, `No run ${id} in ${store.path}.`);
    if (!workflows.has(run.workflowHash)) workflows.set(run.workflowHash, exportWorkflow(store, run.workflowHash).workflows[0]);
    const { id: _id, workflowName: _name, replayOf: _replay, eventsTotal: _total, eventsDropped: _dropped, ...rest } = run;
    return { ...rest, target: rest.target ?? null, aggregates: store.eventAggregates(id) };
  });
  return { format: EXPORT_FORMAT, exported: Date.now(), workflows: [...workflows.values()], runs };
}

/**
 * Writes `doc` to `path` atomically, through a random O_EXCL temporary renamed onto it: a link
 * planted at `path` or at a guessable temporary name is replaced, never written through.
 */
export function writeExportFile(path: string, doc: ExportDoc): void {
  // The user chose this path (CLI --out): its folder may be reached through links, so not `checked`.
  guarded(path, () => writeFileNoFollow(path, `${JSON.stringify(doc, null, 2)}\n`, { checked: false }));
}

/** Parses and checks an export; `source` names it in errors (a file path). */
export function parseExport(text: string, source: string): ExportDoc {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new StoreError('invalid-import', source, `${source}: not a JSON file (${(err as Error).message}).`);
  }
  const parsed = exportDocSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.slice(0, 10).map((i) => `  ${formatPath(i.path)}: ${i.message}`);
    throw new StoreError('invalid-import', source, `${source}: not a valid gpuflow export:\n${lines.join('\n')}`);
  }
  const doc = parsed.data;
  const known = new Set<string>();
  doc.workflows.forEach((w, i) => {
    const actual = contentHash(w.doc);
    if (actual !== w.hash)
      throw new StoreError(
        'invalid-import',
        source,
        `${source}: workflows[${i}].hash: does not match its document (the document hashes to ${actual}); the file was edited or damaged.`,
      );
    known.add(w.hash);
  });
  doc.runs.forEach((r, i) => {
    if (!known.has(r.workflowHash))
      throw new StoreError('invalid-import', source, `${source}: runs[${i}].workflowHash: no embedded workflow has hash ${r.workflowHash}.`);
  });
  return doc;
}

export function readExportFile(path: string): ExportDoc {
  return parseExport(
    guarded(path, () => readFileSync(path, 'utf8')),
    path,
  );
}

export interface ImportReport {
  workflowsAdded: number;
  workflowsExisting: number;
  runsAdded: number[];
  runsSkipped: string[];
}

/** Imports a checked export in one transaction. */
export function importExport(store: Store, doc: ExportDoc): ImportReport {
  return store.transaction(() => {
    const report: ImportReport = { workflowsAdded: 0, workflowsExisting: 0, runsAdded: [], runsSkipped: [] };
    for (const w of doc.workflows) {
      const saved = store.saveWorkflowVersion(w.doc as WorkflowDoc, w.created);
      if (saved.created) report.workflowsAdded++;
      else report.workflowsExisting++;
    }
    for (const r of doc.runs) {
      const { aggregates, ...run } = r;
      const imported =
        run.status === 'running' ? { ...run, status: 'interrupted' as const, error: run.error ?? 'interrupted: still running when it was exported' } : run;
      const id = store.insertImportedRun(imported, aggregates);
      if (id === undefined) report.runsSkipped.push(run.uuid);
      else report.runsAdded.push(id);
    }
    return report;
  });
}

export function importExportFile(store: Store, path: string): ImportReport {
  return importExport(store, readExportFile(path));
}
