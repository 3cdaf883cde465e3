import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, StoreError, type StoreErrorCode } from '../../../main/store';
import { finished, sampleDoc, spawnFixture, storeErrorOf, tempDir } from './helpers';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => {
  chmodSync(dir, 0o700);
  cleanup();
});

/**
 * Opens `path` as a process that file permissions apply to. Tests usually run as root, which
 * ignores them, so then the open happens in a child running as `nobody`.
 */
async function openUnprivileged(path: string): Promise<{ ok: boolean; code?: StoreErrorCode; message?: string }> {
  if (process.getuid?.() !== 0) {
    try {
      openStore(path).close();
      return { ok: true };
    } catch (err) {
      return { ok: false, code: (err as StoreError).code, message: (err as Error).message };
    }
  }
  const out = await finished(spawnFixture('open-store.ts', [path], { uid: 65534, gid: 65534 }));
  expect(out.stderr).toBe('');
  return JSON.parse(out.stdout.trim()) as { ok: boolean; code?: StoreErrorCode; message?: string };
}

describe('opening a database that cannot be used', () => {
  it('names a file that is not a database, and leaves it byte-for-byte as it was', () => {
    const path = join(dir, 'notes.db');
    const content = 'these are my notes, not a database\n'.repeat(200);
    writeFileSync(path, content);
    const err = storeErrorOf(() => openStore(path));
    expect(err.code).toBe('not-a-database');
    expect(err.message).toContain(path);
    expect(err.message).toMatch(/left untouched/);
    expect(readFileSync(path, 'utf8')).toBe(content);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('names a folder given as the database path', () => {
    const path = join(dir, 'a-folder');
    mkdirSync(path);
    const err = storeErrorOf(() => openStore(path));
    expect(err.code).toBe('cannot-open');
    expect(err.message).toContain(path);
  });

  it('says a read-only database file is read-only and what to do', async () => {
    chmodSync(dir, 0o755);
    const path = join(dir, 'ro.db');
    const store = openStore(path);
    store.saveWorkflowVersion(sampleDoc());
    store.close();
    chmodSync(path, 0o444);
    const before = readFileSync(path);
    const result = await openUnprivileged(path);
    expect(result.ok).toBe(false);
    expect(result.code).toBe('read-only');
    expect(result.message).toContain(path);
    expect(result.message).toMatch(/--db/);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('says a read-only folder is read-only', async () => {
    chmodSync(dir, 0o555);
    const result = await openUnprivileged(join(dir, 'new.db'));
    expect(result).toMatchObject({ ok: false, code: 'read-only' });
  });

  it('reports a full disk clearly and keeps everything saved before', () => {
    const path = join(dir, 'full.db');
    const store = openStore(path, { eventCap: 1_000_000 });
    const { hash } = store.saveWorkflowVersion(sampleDoc());
    const { id } = store.startRun({ workflowHash: hash, machine: 'm' });
    store.appendEvents([[id, [{ t: 0, type: 'task-done', op: 'a', worker: 'w', ms: 1 }]]]);
    // Simulate a full disk: SQLite answers SQLITE_FULL once the file may not grow further.
    store.db.pragma(`max_page_count = ${store.db.pragma('page_count', { simple: true }) as number}`);
    const big = Array.from({ length: 20_000 }, (_, i) => ({ t: i, type: 'task-done', key: `task-${i}-${'x'.repeat(40)}`, op: 'a', worker: 'w', ms: 1 }));
    const err = storeErrorOf(() => store.appendEvents([[id, big]]));
    expect(err.code).toBe('disk-full');
    expect(err.message).toContain(path);
    expect(err.message).toMatch(/Free some space/);
    store.close();
    const reopened = openStore(path);
    expect(reopened.getRun(id)).toMatchObject({ status: 'running', eventsTotal: 1 });
    expect(reopened.listEvents(id)).toHaveLength(1);
    expect(reopened.db.pragma('integrity_check', { simple: true })).toBe('ok');
    reopened.close();
  });
});
