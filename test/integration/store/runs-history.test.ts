import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openStore, StoreError, type Store } from '../../../main/store';
import { contentHash } from '../../../common/digest';
import { sampleDoc, tempDir } from './helpers';

let cleanup: () => void;
let store: Store;
beforeEach(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  store = openStore(join(t.dir, 'gpuflow.db'));
});
afterEach(() => {
  store.close();
  cleanup();
});

describe('workflow versions', () => {
  it('stores a document once per content, whatever its key order', () => {
    const doc = sampleDoc('w', 10);
    const first = store.saveWorkflowVersion(doc);
    expect(first).toMatchObject({ hash: contentHash(doc), created: true });
    const reordered = JSON.parse(JSON.stringify({ edges: doc.edges, nodes: doc.nodes, params: doc.params, name: doc.name, format: doc.format }));
    expect(store.saveWorkflowVersion(reordered)).toEqual({ ...first, created: false });
    const second = store.saveWorkflowVersion(sampleDoc('w', 20));
    expect(second.hash).not.toBe(first.hash);
    expect(store.listWorkflowVersions('w').map((v) => v.hash).sort()).toEqual([first.hash, second.hash].sort());
    expect(store.getWorkflowVersion(first.hash)!.doc).toEqual(doc);
    expect(store.findWorkflowVersion(first.hash.slice(0, 12))!.hash).toBe(first.hash);
  });
});

describe('runs and history', () => {
  function seed() {
    const a = store.saveWorkflowVersion(sampleDoc('alpha pipeline')).hash;
    const b = store.saveWorkflowVersion(sampleDoc('beta_model', 5)).hash;
    const r1 = store.startRun({ workflowHash: a, machine: 'm', params: { N: 1 }, started: 1_000 }).id;
    store.finishRun(r1, { status: 'done', ended: 1_500, resultDigest: 'x', results: { sum: 1 } });
    const r2 = store.startRun({ workflowHash: b, machine: 'm', started: 2_000 }).id;
    store.finishRun(r2, { status: 'failed', ended: 2_100, error: 'worker gpu0 died' });
    const r3 = store.startRun({ workflowHash: a, machine: 'm', params: { N: 2 }, devices: ['gpu0'], started: 3_000 }).id;
    store.finishRun(r3, { status: 'done', ended: 3_900, resultDigest: 'y', results: { sum: 2 } });
    const r4 = store.startRun({ workflowHash: b, machine: 'm', started: 4_000 }).id;
    return { a, b, r1, r2, r3, r4 };
  }

  it('records a run from start to end', () => {
    const { a, r1 } = seed();
    expect(store.getRun(r1)).toMatchObject({
      workflowHash: a, workflowName: 'alpha pipeline', params: { N: 1 }, status: 'done', started: 1_000, ended: 1_500,
      resultDigest: 'x', results: { sum: 1 }, error: null, pid: process.pid, machine: 'm',
    });
  });

  it('filters by status, workflow name or hash prefix, and date range', () => {
    const { a, r1, r2, r3, r4 } = seed();
    expect(store.listRuns().map((r) => r.id)).toEqual([r4, r3, r2, r1]);
    expect(store.listRuns({ status: 'done' }).map((r) => r.id)).toEqual([r3, r1]);
    expect(store.listRuns({ status: ['failed', 'running'] }).map((r) => r.id)).toEqual([r4, r2]);
    expect(store.listRuns({ workflow: 'ALPHA' }).map((r) => r.id)).toEqual([r3, r1]);
    expect(store.listRuns({ workflow: a.slice(0, 8) }).map((r) => r.id)).toEqual([r3, r1]);
    // LIKE wildcards in user text are literal: '_' matches only an underscore.
    expect(store.listRuns({ workflow: 'beta_' }).map((r) => r.id)).toEqual([r4, r2]);
    expect(store.listRuns({ workflow: 'alpha_' })).toEqual([]);
    expect(store.listRuns({ from: 2_000, to: 4_000 }).map((r) => r.id)).toEqual([r3, r2]);
  });

  it('sorts by duration, running runs last, and pages', () => {
    const { r1, r2, r3, r4 } = seed();
    const asc = store.listRuns({ sort: 'duration', order: 'asc' });
    expect(asc.map((r) => [r.id, r.durationMs])).toEqual([[r2, 100], [r1, 500], [r3, 900], [r4, null]]);
    expect(store.listRuns({ sort: 'started', order: 'asc', limit: 2, offset: 1 }).map((r) => r.id)).toEqual([r2, r3]);
    expect(() => store.listRuns({ status: 'bogus' as never })).toThrow(/unknown status "bogus"/);
  });

  it('compares two runs', () => {
    const { r1, r3 } = seed();
    const c = store.compareRuns(r1, r3);
    expect(c.sameWorkflow).toBe(true);
    expect(c.params).toEqual([{ path: 'N', a: 1, b: 2 }]);
    expect(c.devices).toEqual([{ path: '[0]', a: undefined, b: 'gpu0' }]);
    expect(c.results).toEqual([{ path: 'sum', a: 1, b: 2 }]);
    expect(c.sameDigest).toBe(false);
    expect(c.times).toEqual({ aMs: 500, bMs: 900, ratio: 1.8 });
  });

  it('refuses runs of unsaved workflows and unknown run ids with clear errors', () => {
    expect(() => store.startRun({ workflowHash: 'f'.repeat(64), machine: 'm' })).toThrow(/not saved/);
    const err = (() => {
      try {
        store.finishRun(424242, { status: 'done' });
      } catch (e) {
        return e as StoreError;
      }
    })();
    expect(err?.code).toBe('not-found');
    expect(() => store.finishRun(1, { status: 'interrupted' as never })).toThrow(/done, failed or cancelled/);
  });
});
