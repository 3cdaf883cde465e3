import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../../main/store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { finished, spawnFixture, tempDir, waitForLine } from './helpers';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

interface Done {
  id: number;
  firstWrite: number;
  lastWrite: number;
}

describe('two processes writing at once', () => {
  it('lose nothing, even when both create and migrate the same new file', async () => {
    const path = join(dir, 'shared.db');
    const go = join(dir, 'go');
    const [batches, perBatch] = [150, 40];
    const children = [0, 1].map(() => spawnFixture('event-burst.ts', [path, go, String(batches), String(perBatch)]));
    const outputs = children.map(finished);
    // Release both only once both have loaded, so their writes overlap.
    await Promise.all(children.map((c) => waitForLine<{ ready?: boolean }>(c, (v) => v.ready === true)));
    writeFileSync(go, '');
    const results = await Promise.all(outputs);
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    const done = results.map((r) => JSON.parse(r.stdout.trim().split('\n').pop()!) as Done);
    expect(new Set(done.map((d) => d.id)).size).toBe(2);
    // The write phases really overlapped.
    expect(Math.max(done[0].firstWrite, done[1].firstWrite)).toBeLessThanOrEqual(Math.min(done[0].lastWrite, done[1].lastWrite));

    const store = openStore(path);
    // Each migration applied once, though both processes migrated the new file.
    expect(store.db.prepare('SELECT COUNT(*) FROM schema_version').pluck().get()).toBe(MIGRATIONS.length);
    expect(store.listWorkflowVersions()).toHaveLength(1);
    for (const { id } of done) {
      expect(store.db.prepare('SELECT COUNT(*) FROM events WHERE run_id = ?').pluck().get(id)).toBe(batches * perBatch);
      expect(store.getRun(id)).toMatchObject({ status: 'done', eventsTotal: batches * perBatch, eventsDropped: 0 });
      expect(store.eventAggregates(id)[0].events).toBe(batches * perBatch);
    }
    store.close();
  });
});
