import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportRuns, exportWorkflow, importExportFile, openStore, readExportFile, writeExportFile, type Store } from '../../../main/store';
import { sampleDoc, storeErrorOf, tempDir } from './helpers';

let dir: string;
let cleanup: () => void;
let src: Store;
let dst: Store;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  src = openStore(join(dir, 'src.db'));
  dst = openStore(join(dir, 'dst.db'));
});
afterEach(() => {
  src.close();
  dst.close();
  cleanup();
});

describe('export and import', () => {
  it('round-trips runs with their embedded workflow, and a second import adds nothing', () => {
    const { hash } = src.saveWorkflowVersion(sampleDoc('exported'));
    const done = src.startRun({ workflowHash: hash, machine: 'm', params: { N: 3 }, seeds: [1, 2], started: 10 }).id;
    src.appendEvents([[done, [{ t: 1, type: 'task-done', op: 'sum', worker: 'cpu0', ms: 4, bytes: 8 }]]]);
    src.finishRun(done, { status: 'done', ended: 20, resultDigest: 'abc', results: { sum: 1.5 } });
    const running = src.startRun({ workflowHash: hash, machine: 'm', started: 30 }).id;
    const file = join(dir, 'runs.json');
    writeExportFile(file, exportRuns(src, [done, running]));
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc.workflows).toHaveLength(1);
    expect(doc.workflows[0].doc).toEqual(sampleDoc('exported'));

    const report = importExportFile(dst, file);
    expect(report).toMatchObject({ workflowsAdded: 1, workflowsExisting: 0, runsSkipped: [] });
    expect(report.runsAdded).toHaveLength(2);
    const [a, b] = report.runsAdded.map((id) => dst.getRun(id)!);
    const original = src.getRun(done)!;
    expect(a).toMatchObject({ uuid: original.uuid, workflowHash: hash, params: { N: 3 }, seeds: [1, 2], status: 'done', resultDigest: 'abc', results: { sum: 1.5 }, started: 10, ended: 20 });
    expect(dst.eventAggregates(a.id)).toEqual(src.eventAggregates(done));
    expect(b.status).toBe('interrupted');
    expect(dst.getWorkflowVersion(hash)!.doc).toEqual(sampleDoc('exported'));

    const again = importExportFile(dst, file);
    expect(again).toMatchObject({ workflowsAdded: 0, workflowsExisting: 1, runsAdded: [] });
    expect(again.runsSkipped).toHaveLength(2);
    expect(dst.listRuns()).toHaveLength(2);
  });

  it('exports a workflow alone', () => {
    const { hash } = src.saveWorkflowVersion(sampleDoc('alone'));
    const file = join(dir, 'wf.json');
    writeExportFile(file, exportWorkflow(src, hash));
    expect(importExportFile(dst, file)).toMatchObject({ workflowsAdded: 1, runsAdded: [] });
    expect(dst.getWorkflowVersion(hash)!.name).toBe('alone');
  });

  it('rejects bad files with the path of what is wrong, writing nothing', () => {
    const { hash } = src.saveWorkflowVersion(sampleDoc('x'));
    const run = src.startRun({ workflowHash: hash, machine: 'm' }).id;
    const good = exportRuns(src, [run]);
    const file = join(dir, 'bad.json');

    writeFileSync(file, '{ not json');
    expect(storeErrorOf(() => readExportFile(file)).message).toMatch(/bad\.json: not a JSON file/);

    writeFileSync(file, JSON.stringify({ ...good, runs: [{ ...good.runs[0], status: 'exploded' }] }));
    const e1 = storeErrorOf(() => importExportFile(dst, file));
    expect(e1.code).toBe('invalid-import');
    expect(e1.message).toContain(file);
    expect(e1.message).toMatch(/runs\[0\]\.status/);

    writeFileSync(file, JSON.stringify({ ...good, workflows: [{ ...good.workflows[0], doc: { ...good.workflows[0].doc, nodes: [{ id: 'n', params: {} }] } }] }));
    expect(storeErrorOf(() => importExportFile(dst, file)).message).toMatch(/workflows\[0\]\.doc\.nodes\[0\]\.op/);

    const tampered = structuredClone(good);
    (tampered.workflows[0].doc.params as Record<string, number>).N = 5;
    writeFileSync(file, JSON.stringify(tampered));
    expect(storeErrorOf(() => importExportFile(dst, file)).message).toMatch(/workflows\[0\]\.hash: does not match its document/);

    writeFileSync(file, JSON.stringify({ ...good, runs: [{ ...good.runs[0], workflowHash: 'a'.repeat(64) }] }));
    expect(storeErrorOf(() => importExportFile(dst, file)).message).toMatch(/runs\[0\]\.workflowHash: no embedded workflow/);

    expect(dst.listRuns()).toEqual([]);
    expect(dst.listWorkflowVersions()).toEqual([]);
  });
});
