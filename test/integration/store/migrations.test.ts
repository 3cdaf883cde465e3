import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LATEST_VERSION, migrate, openDatabase, openStore, schemaVersion, StoreError } from '../../../main/store';
import { contentHash } from '../../../common/digest';
import { canonicalJson } from '../../../common/canonical-json';
import { sampleDoc, tempDir } from './helpers';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

function tables(path: string): string[] {
  const db = openDatabase(path);
  const names = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
  db.close();
  return names;
}

describe('migrations', () => {
  it('migrate from empty to the latest version', () => {
    const path = join(dir, 'sub', 'folder', 'gpuflow.db');
    const store = openStore(path);
    expect(store.schemaVersion).toBe(LATEST_VERSION);
    expect(LATEST_VERSION).toBe(3);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    const versions = store.db.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all();
    expect(versions).toEqual([1, 2, 3]);
    store.close();
    expect(tables(path)).toEqual(['benchmark_configs', 'benchmarks', 'event_aggregates', 'events', 'runs', 'schema_version', 'settings', 'sqlite_sequence', 'workflows']);
    // Reopening applies nothing twice.
    const again = openStore(path);
    expect(again.db.prepare('SELECT COUNT(*) FROM schema_version').pluck().get()).toBe(3);
    again.close();
  });

  it('migrates a v1 database with data to v2, keeping the data and backfilling aggregates', () => {
    const path = join(dir, 'v1.db');
    const db = openDatabase(path);
    expect(migrate(db, path, 1)).toBe(1);
    const doc = sampleDoc();
    const hash = contentHash(doc);
    db.prepare('INSERT INTO workflows (hash, name, doc, created) VALUES (?, ?, ?, ?)').run(hash, doc.name, canonicalJson(doc), 1000);
    db.prepare(`INSERT INTO runs (id, uuid, workflow_hash, machine, host, pid, owner, started, ended, status, result_digest)
      VALUES (1, 'u1', ?, 'm', 'h', 1, 'o', 2000, 2500, 'done', 'abc')`).run(hash);
    const ins = db.prepare('INSERT INTO events (run_id, seq, t, type, worker, op, ms, bytes) VALUES (1, ?, ?, ?, ?, ?, ?, ?)');
    ins.run(0, 0, 'task-start', 'gpu0', 'gen', null, null);
    ins.run(1, 5, 'task-done', 'gpu0', 'gen', 5, 800);
    ins.run(2, 6, 'task-done', 'gpu0', 'gen', 3, 800);
    ins.run(3, 9, 'task-done', 'cpu0', 'sum', 2, 8);
    db.close();

    const store = openStore(path);
    expect(store.schemaVersion).toBe(3);
    const run = store.getRun(1)!;
    expect(run.target).toBeNull();
    expect(run).toMatchObject({ uuid: 'u1', workflowHash: hash, workflowName: doc.name, status: 'done', resultDigest: 'abc', eventsTotal: 4, eventsDropped: 0 });
    expect(store.getWorkflowVersion(hash)!.doc).toEqual(doc);
    expect(store.eventAggregates(1)).toEqual([
      { op: 'gen', worker: 'gpu0', events: 3, tasks: 2, msTotal: 8, msMax: 5, bytesTotal: 1600 },
      { op: 'sum', worker: 'cpu0', events: 1, tasks: 1, msTotal: 2, msMax: 2, bytesTotal: 8 },
    ]);
    // New events continue the sequence after the migrated ones.
    store.appendEvents([[1, [{ t: 10, type: 'task-done', op: 'sum', worker: 'cpu0', ms: 1 }]]]);
    expect(store.listEvents(1).map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    store.close();
  });

  it('migrates v2 to v3: benchmark configurations kept, runs without a target, the Dask configuration allowed', () => {
    const path = join(dir, 'v2.db');
    const db = openDatabase(path);
    expect(migrate(db, path, 2)).toBe(2);
    const doc = sampleDoc();
    const hash = contentHash(doc);
    db.prepare('INSERT INTO workflows (hash, name, doc, created) VALUES (?, ?, ?, ?)').run(hash, doc.name, canonicalJson(doc), 1000);
    db.prepare(`INSERT INTO benchmarks (id, uuid, workflow_hash, machine, host, created, warmup, repetitions, digests_agree, tolerance_digits)
      VALUES (1, 'b1', ?, 'm', 'h', 1000, 1, 3, 1, 10)`).run(hash);
    db.prepare(`INSERT INTO benchmark_configs (benchmark_id, position, name, available, virtual, workers, times, median)
      VALUES (1, 0, '1 CPU core', 1, 0, 1, '[5,6,7]', 6)`).run();
    expect(() => db.prepare(`INSERT INTO benchmark_configs (benchmark_id, position, name, available, virtual, workers, times) VALUES (1, 4, 'Dask cluster', 1, 0, 2, '[]')`).run()).toThrow(/CHECK/);
    db.close();

    const store = openStore(path);
    expect(store.schemaVersion).toBe(3);
    expect(store.db.prepare('SELECT name, times, median FROM benchmark_configs').all()).toEqual([{ name: '1 CPU core', times: '[5,6,7]', median: 6 }]);
    store.db.prepare(`INSERT INTO benchmark_configs (benchmark_id, position, name, available, virtual, workers, times) VALUES (1, 4, 'Dask cluster', 1, 0, 2, '[]')`).run();
    const run = store.startRun({ workflowHash: hash, machine: 'm', target: { kind: 'dask', target: 'tcp://s:8786' } });
    expect(store.getRun(run.id)!.target).toEqual({ kind: 'dask', target: 'tcp://s:8786' });
    store.close();
  });

  it('refuses a database from a newer gpuflow and leaves it untouched', () => {
    const path = join(dir, 'new.db');
    openStore(path).close();
    const db = openDatabase(path);
    db.prepare('INSERT INTO schema_version (version, name, applied) VALUES (99, ?, 0)').run('future');
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const before = createHash('sha256').update(readFileSync(path)).digest('hex');
    expect(() => openStore(path)).toThrow(StoreError);
    try {
      openStore(path);
    } catch (err) {
      expect((err as StoreError).code).toBe('newer-schema');
      expect((err as Error).message).toContain(path);
      expect((err as Error).message).toMatch(/version 99/);
    }
    expect(createHash('sha256').update(readFileSync(path)).digest('hex')).toBe(before);
    const check = openDatabase(path);
    expect(schemaVersion(check)).toBe(99);
    check.close();
  });
});
