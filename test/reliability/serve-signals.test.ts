/**
 * `gpuflow serve` stops on SIGTERM as on SIGINT (issue 18, item 4), as a real process: runs are
 * cancelled and recorded, its workers end, and the store is closed cleanly. The oracle for "closed
 * cleanly" is SQLite's: the last connection to close checkpoints the WAL and deletes the -wal
 * file, which a killed process leaves behind. Workers are found by a marker in their environment,
 * so the check holds even for a server that died without reporting them.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import { api, NO_GPU_ENV, seedDoc, startServe, tempDir } from './helpers';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Pids of live processes whose environment holds GPUFLOW_TEST_MARK=mark. */
function markedPids(mark: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/environ`, 'latin1').split('\0').includes(`GPUFLOW_TEST_MARK=${mark}`)) out.push(Number(p));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return out;
}

function exited(child: ReturnType<typeof spawn>, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve still running ${ms} ms after the signal`));
    }, ms);
    child.once('exit', (code, signal) => {
      clearTimeout(t);
      resolve({ code, signal });
    });
  });
}

const until = async (what: string, ok: () => boolean, ms = 60_000) => {
  for (const end = Date.now() + ms; !ok(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('serve stops on SIGTERM and SIGINT', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s with a WebSocket client and a run in flight: run cancelled and recorded, workers gone, store closed', async (sig) => {
    const dir = tempDir();
    dirs.push(dir);
    const db = path.join(dir, 'gpuflow.db');
    const mark = `${sig}-${process.pid}-${Date.now()}`;
    const s = await startServe(['--virtual-gpus', '1', '--backend', 'js', '--threads', '1', '--db', db], { GPUFLOW_TEST_MARK: mark });
    // A failed expectation must not leave the server (and its workers) running.
    onTestFinished(() => s.stop());
    const workers = markedPids(mark).filter((p) => readFileSync(`/proc/${p}/cmdline`, 'latin1').includes('--gpuflow-worker='));
    expect(workers).toHaveLength(2);
    const ws = new WebSocket(`${s.base.replace('http', 'ws')}/api/events?token=${s.token}`, { headers: { origin: s.base } });
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    let running = false;
    ws.on('message', (b) => (running ||= (JSON.parse(b.toString()) as Array<{ type: string }>).some((m) => m.type === 'task')));
    // Enough work to be still running when the signal comes (a run that finished would prove less).
    const started = await api(s, 'POST', '/api/runs', { doc: seedDoc(), params: { N: 40000, chunks: 250 } });
    expect(started.status).toBe(200);
    await until('the first task', () => running);
    s.child.kill(sig);
    expect(await exited(s.child, 30_000)).toEqual({ code: 0, signal: null });
    expect(markedPids(mark)).toEqual([]);
    expect(existsSync(`${db}-wal`)).toBe(false);
    const rows = new Database(db, { readonly: true }).prepare('SELECT status, error FROM runs').all() as { status: string; error: string | null }[];
    expect(rows).toEqual([{ status: 'cancelled', error: expect.stringMatching(/shutting down/) }]);
    ws.close();
  }, 120_000);

  it('SIGTERM while it is still starting its workers: it stops once started, nothing left running, store closed', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = path.join(dir, 'gpuflow.db');
    const mark = `start-${process.pid}-${Date.now()}`;
    const child = spawn(process.execPath, ['bin/gpuflow.mjs', 'serve', '--port', '0', '--token=signal-test-token-0123456789', '--virtual-gpus', '1', '--backend', 'js', '--db', db], {
      env: { ...process.env, ...NO_GPU_ENV, GPUFLOW_TEST_MARK: mark },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    // The store opens before the workers start: its WAL file appearing means start-up is under way.
    await until('the store to open', () => existsSync(`${db}-wal`));
    expect(out).not.toMatch(/gpuflow serve: http/);
    child.kill('SIGTERM');
    expect(await exited(child, 60_000)).toEqual({ code: 0, signal: null });
    expect(out).not.toMatch(/gpuflow serve: http/);
    expect(markedPids(mark)).toEqual([]);
    expect(existsSync(`${db}-wal`)).toBe(false);
  }, 120_000);
});
