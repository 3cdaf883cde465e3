import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { join } from 'node:path';
import { openStore } from '../../../main/store';
import { sampleDoc, spawnFixture, tempDir, waitForLine } from './helpers';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe('a run whose process is killed mid-way', () => {
  it('leaves the database readable, and recovery marks the run interrupted', async () => {
    const path = join(dir, 'gpuflow.db');
    const child = spawnFixture('run-writer.ts', [path]);
    // Wait until the child has committed events in several transactions, then kill it hard.
    const progress = await waitForLine<{ id: number; total: number }>(child, (v) => v.total >= 500);
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');

    const store = openStore(path);
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    const before = store.getRun(progress.id)!;
    expect(before.status).toBe('running');
    expect(before.eventsTotal).toBeGreaterThanOrEqual(500);
    expect(store.listEvents(progress.id, { limit: 1_000_000 })).toHaveLength(before.eventsTotal);

    // A run of this (live) process must survive recovery.
    const { hash } = store.saveWorkflowVersion(sampleDoc('alive'));
    const alive = store.startRun({ workflowHash: hash, machine: 'm' }).id;

    expect(store.markInterrupted()).toEqual([progress.id]);
    const after = store.getRun(progress.id)!;
    expect(after.status).toBe('interrupted');
    expect(after.ended).not.toBeNull();
    expect(after.error).toMatch(/ended without finishing/);
    expect(store.getRun(alive)!.status).toBe('running');
    expect(store.markInterrupted()).toEqual([]);
    store.close();
  });

  it('treats a run recorded under this pid by an earlier process as interrupted', () => {
    const store = openStore(join(dir, 'gpuflow.db'));
    const { hash } = store.saveWorkflowVersion(sampleDoc());
    const id = store.startRun({ workflowHash: hash, machine: 'm' }).id;
    // Same pid, different process start time: what a reused pid looks like after a restart.
    store.db.prepare(`UPDATE runs SET owner = owner || '-earlier' WHERE id = ?`).run(id);
    expect(store.markInterrupted()).toEqual([id]);
    store.close();
  });
});
