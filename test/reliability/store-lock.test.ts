/**
 * A write lock held by another process does not stall serve (issue 29 item 9): with a 10 s busy
 * timeout on main's thread, a run started while `sqlite3` held BEGIN IMMEDIATE froze every
 * request, /api/devices included, for 10 s. Here another process holds the lock for 15 s while a
 * client polls /api/devices and starts a run: every request is answered while the lock is still
 * held (no tight time is asserted; the figure is printed), the run start is refused with a 503
 * naming the lock, and once the lock is gone runs start and are recorded as before.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, figures, seedDoc, startServe, tempDir, type Serving } from './helpers';

const HOLD_S = 15;
let dir: string;
let s: Serving;

beforeAll(async () => {
  dir = tempDir();
  // Run from the sources (not the prebuilt bundles), so the code under test is this checkout's.
  s = await startServe(['--db', path.join(dir, 'gpuflow.db'), '--virtual-gpus', '1', '--cpu-workers', '1'], { GPUFLOW_NO_BUNDLE: '1' });
}, 90_000);

afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Another process holding the write lock; resolves once it holds it, `released` when it exits. */
function holdLock(db: string): Promise<{ released: Promise<void>; held: () => boolean }> {
  const py = `import sqlite3, sys, time\nc = sqlite3.connect(sys.argv[1], isolation_level=None)\nc.execute('BEGIN IMMEDIATE')\nprint('locked', flush=True)\ntime.sleep(${HOLD_S})\nc.execute('ROLLBACK')\n`;
  const child = spawn('/usr/bin/python3', ['-c', py, db], { stdio: ['ignore', 'pipe', 'inherit'] });
  let holding = false;
  const released = new Promise<void>((r) => child.on('exit', () => ((holding = false), r())));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.stdout!.on('data', (d: Buffer) => {
      if (!d.toString().includes('locked')) return;
      holding = true;
      resolve({ released, held: () => holding });
    });
  });
}

describe('a write lock held by another process', () => {
  it(`leaves serve answering while it is held ${HOLD_S} s; runs start again after`, { timeout: 120_000 }, async () => {
    const small = { ...seedDoc(), params: { N: 200, chunks: 100, seed: 0, dtype: 'float64' } };
    const before = await api(s, 'POST', '/api/runs', { doc: small });
    expect(before.status).toBe(200);

    const lock = await holdLock(path.join(dir, 'gpuflow.db'));
    const latencies: number[] = [];
    let answeredWhileHeld = 0;
    // A run start needs a write: refused at once while the lock is held, never a stall.
    const t0 = Date.now();
    const during = await api(s, 'POST', '/api/runs', { doc: small });
    const runStartMs = Date.now() - t0;
    expect(lock.held()).toBe(true);
    expect(during.status).toBe(503);
    expect(JSON.stringify(during.json)).toMatch(/locked by another process/);
    // Meanwhile (and while the first run's end and events wait for the lock) the API answers.
    while (lock.held()) {
      const t = Date.now();
      const r = await api(s, 'GET', '/api/devices');
      latencies.push(Date.now() - t);
      expect(r.status).toBe(200);
      if (lock.held()) answeredWhileHeld++;
      await new Promise((res) => setTimeout(res, 200));
    }
    await lock.released;
    figures('store-lock', { holdS: HOLD_S, requests: latencies.length, answeredWhileHeld, maxMs: Math.max(...latencies), runStartMs });
    // Each answer came back within a generous bound: well under the old 10 s busy wait.
    expect(Math.max(...latencies)).toBeLessThan(5000);
    expect(runStartMs).toBeLessThan(5000);
    expect(answeredWhileHeld).toBeGreaterThan(HOLD_S);

    // After the lock: the first run's end was written once the lock was free, and a new run works.
    const after = await api(s, 'POST', '/api/runs', { doc: small });
    expect(after.status).toBe(200);
    const id = (before.json as { storeId: number }).storeId;
    for (let i = 0; i < 50; i++) {
      const rec = await api(s, 'GET', `/api/runs/${id}`);
      if ((rec.json as { status?: string }).status === 'done') break;
      await new Promise((res) => setTimeout(res, 200));
    }
    expect(((await api(s, 'GET', `/api/runs/${id}`)).json as { status?: string }).status).toBe('done');
  });
});
