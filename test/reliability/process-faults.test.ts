/**
 * Faults of the main process and its disk: SIGKILL of `gpuflow serve` and of `gpuflow run`
 * mid-run (database intact, run marked interrupted at the next start, next start clean, no orphan
 * workers); a read-only database file or folder and a full disk (RLIMIT_FSIZE) through the CLI:
 * a clear error, nothing corrupted.
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../integration/cli-helpers';
import { api, figures, isAlive, NO_GPU_ENV, seedDoc, startServe, tempDir } from './helpers';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) {
    chmodSync(d, 0o755);
    rmSync(d, { recursive: true, force: true });
  }
});
function dir(): string {
  const d = tempDir();
  chmodSync(d, 0o755); // so the unprivileged child below can reach it
  dirs.push(d);
  return d;
}

function inspect(db: string): { integrity: string; runs: Array<{ id: number; status: string; error: string | null }> } {
  const c = new Database(db, { readonly: true });
  try {
    return { integrity: c.pragma('integrity_check', { simple: true }) as string, runs: c.prepare('SELECT id, status, error FROM runs ORDER BY id').all() as Array<{ id: number; status: string; error: string | null }> };
  } finally {
    c.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SIGKILL of the serve process mid-run', () => {
  it('leaves an intact database, the run marked interrupted at the next start, and a clean next start', async () => {
    const db = path.join(dir(), 'gpuflow.db');
    const args = ['--virtual-gpus', '1', '--backend', 'js', '--threads', '1', '--db', db];
    const s = await startServe(args);
    const workers = (await api(s, 'GET', '/api/workers')).json as Array<{ pid: number }>;
    // Long enough on one js thread (1.4e8 generated samples, several seconds) that the kill below
    // lands mid-run on any machine: the compiler merges small chunks for GPU workers (coarsen.ts),
    // so a small graph's tasks no longer set its length.
    const started = await api(s, 'POST', '/api/runs', { doc: seedDoc(), params: { N: 24000, chunks: 500 } });
    expect(started.status).toBe(200);
    const storeId = (started.json as { storeId: number }).storeId;
    await sleep(1500); // tasks running, events being written
    s.child.kill('SIGKILL');
    await new Promise((r) => s.child.once('exit', r));
    const t0 = Date.now();
    while (workers.some((w) => isAlive(w.pid)) && Date.now() - t0 < 5000) await sleep(100);
    const orphans = workers.filter((w) => isAlive(w.pid)).length;

    const after = inspect(db);
    const s2 = await startServe(args);
    try {
      const rec = (await api(s2, 'GET', `/api/runs/${storeId}`)).json as { status: string; error: string };
      const next = await api(s2, 'POST', '/api/runs', { doc: seedDoc(), params: { N: 400, chunks: 200 } });
      const nextId = (next.json as { storeId: number }).storeId;
      let nextStatus = 'running';
      for (let i = 0; i < 100 && nextStatus === 'running'; i++) {
        await sleep(200);
        nextStatus = ((await api(s2, 'GET', `/api/runs/${nextId}`)).json as { status: string }).status;
      }
      figures('serve-sigkill', { integrity: after.integrity, statusInFileAfterKill: after.runs.find((r) => r.id === storeId)?.status, statusAfterRestart: rec.status, orphanWorkers: orphans, nextRun: nextStatus });
      expect(after.integrity).toBe('ok');
      expect(after.runs.find((r) => r.id === storeId)?.status).toBe('running');
      expect(rec.status).toBe('interrupted');
      expect(nextStatus).toBe('done');
      expect(orphans).toBe(0);
    } finally {
      await s2.stop();
    }
    expect(inspect(db).integrity).toBe('ok');
  }, 120_000);
});

describe('SIGKILL of `gpuflow run` mid-run', () => {
  it('leaves an intact database and the run interrupted for the next command', async () => {
    const d = dir();
    const db = path.join(d, 'gpuflow.db');
    const wf = path.join(d, 'seed.json');
    writeFileSync(wf, JSON.stringify(seedDoc()));
    const child = spawn(process.execPath, ['bin/gpuflow.mjs', 'run', wf, '--param', 'N=6000', '--param', 'chunks=250', '--backend', 'js', '--threads', '1', '--db', db], { env: { ...process.env, ...NO_GPU_ENV }, stdio: 'ignore' });
    // Wait until the run is recorded and has been going a moment.
    let seen = false;
    for (let i = 0; i < 150 && !seen; i++) {
      await sleep(200);
      try {
        seen = inspect(db).runs.some((r) => r.status === 'running');
      } catch {
        /* not created yet */
      }
    }
    expect(seen).toBe(true);
    await sleep(1000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const after = inspect(db);
    const hist = await runCli(['history', '--db', db, '--json'], NO_GPU_ENV);
    const runs = JSON.parse(hist.stdout) as Array<{ status: string }>;
    const again = await runCli(['run', wf, '--param', 'N=400', '--param', 'chunks=200', '--backend', 'js', '--threads', '1', '--db', db], NO_GPU_ENV);
    const final = inspect(db);
    figures('cli-run-sigkill', { integrity: after.integrity, statusInFile: after.runs[0]?.status, historyStatusBeforeNextStart: runs.map((r) => r.status), nextRunExit: again.code, statusesAfterNextRun: final.runs.map((r) => r.status), integrityAfter: final.integrity });
    expect(after.integrity).toBe('ok');
    // `gpuflow history` marks the dead run interrupted itself, before any other start (D6,
    // docs/reliability.md: it once showed it 'running' until the next run or serve).
    expect(runs.map((r) => r.status)).toContain('interrupted');
    expect(final.runs.map((r) => r.status)).toEqual(['interrupted', 'done']);
    expect(again.code).toBe(0);
    expect(final.integrity).toBe('ok');
  }, 120_000);
});

/** Runs the CLI as `nobody`, so file permissions apply (the tests usually run as root). */
function runAsNobody(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/gpuflow.mjs', ...args], { env: { ...process.env, ...NO_GPU_ENV, HOME: '/tmp' }, stdio: ['ignore', 'ignore', 'pipe'], uid: 65534, gid: 65534 });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

/** A fresh database holding one finished run of the seed workflow, and the small run's arguments. */
async function dbWithOneRun(): Promise<{ db: string; wf: string; small: string[] }> {
  const d = dir();
  const db = path.join(d, 'gpuflow.db');
  const wf = path.join(d, 'seed.json');
  writeFileSync(wf, JSON.stringify(seedDoc()));
  const small = ['--param', 'N=200', '--param', 'chunks=100', '--backend', 'js', '--threads', '1'];
  expect((await runCli(['run', wf, ...small, '--db', db], NO_GPU_ENV)).code).toBe(0);
  return { db, wf, small };
}

describe('a database that cannot be written', () => {
  it('read-only file or folder: a clear error through the CLI, the file unchanged', async () => {
    const { db, wf, small } = await dbWithOneRun();
    const before = readFileSync(db);
    chmodSync(db, 0o444);
    const roFile = await runAsNobody(['run', wf, ...small, '--db', db]);
    chmodSync(db, 0o644);
    const roDir = path.join(dir(), 'sub');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(roDir);
    chmodSync(roDir, 0o555);
    const roFolder = await runAsNobody(['run', wf, ...small, '--db', path.join(roDir, 'new.db')]);
    figures('read-only-db', { fileExit: roFile.code, fileMessage: roFile.stderr.trim().split('\n')[0], folderExit: roFolder.code, folderMessage: roFolder.stderr.trim().split('\n')[0], fileUnchanged: readFileSync(db).equals(before) });
    expect(roFile.code).not.toBe(0);
    expect(roFile.stderr).toMatch(/read-only/);
    expect(roFile.stderr).toContain(db);
    expect(readFileSync(db).equals(before)).toBe(true);
    expect(roFolder.code).not.toBe(0);
    expect(roFolder.stderr).toMatch(/read-only/);
    expect(inspect(db).integrity).toBe('ok');
  }, 120_000);

  it('full disk (file size limit): a clear error, earlier runs intact', async () => {
    const { db, wf, small } = await dbWithOneRun();
    // Fold the WAL in so the limit below applies to a known file size.
    const c = new Database(db);
    c.pragma('wal_checkpoint(TRUNCATE)');
    c.close();
    copyFileSync(db, `${db}.bak`);
    const limitKiB = Math.ceil(statSync(db).size / 1024) + 8;
    // RLIMIT_FSIZE: writes past the limit fail with EFBIG (Node ignores SIGXFSZ), as on a full disk.
    const out = await new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) => {
      const child = spawn('bash', ['-c', `ulimit -f ${limitKiB}; exec "${process.execPath}" bin/gpuflow.mjs run "${wf}" --param N=3000 --param chunks=100 --backend js --threads 1 --db "${db}"`], { env: { ...process.env, ...NO_GPU_ENV }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.on('exit', (code, signal) => resolve({ code, signal, stderr }));
    });
    const after = inspect(db);
    const c2 = new Database(db, { readonly: true });
    const second = c2.prepare('SELECT status, error, events_total AS total, events_stored AS stored FROM runs WHERE id = 2').get() as
      | { status: string; error: string | null; total: number; stored: number }
      | undefined;
    c2.close();
    // 30x30 blocks of the fused seed graph plus the reduction tree: ~1000 task events expected.
    figures('full-disk-db', {
      limitKiB,
      exit: out.code,
      signal: out.signal,
      message: out.stderr.trim().split('\n').filter((l) => !l.startsWith('[store] event flush failed')).slice(0, 2).join(' | ').slice(0, 300),
      flushFailures: out.stderr.split('\n').filter((l) => l.startsWith('[store] event flush failed')).length,
      integrity: after.integrity,
      runs: after.runs.map((r) => r.status),
      secondRunStatus: second?.status,
      secondRunEventsTotal: second?.total,
      secondRunEventsStored: second?.stored,
      secondRunError: second?.error,
    });
    // D7: data lost must be visible. The run's record exists, every task event is either stored or
    // counted as dropped (eventsDropped = total - stored), and the loss is noted on the run.
    expect(second).toBeDefined();
    expect(out.signal).toBeNull();
    expect(out.code).not.toBe(0);
    expect(after.integrity).toBe('ok');
    expect(after.runs[0].status).toBe('done');
    if (second!.status === 'running') {
      // Where the disk fills decides the branch: when even the run's final record cannot be
      // written, the command says so and the next start marks the run interrupted (docs/store.md).
      expect(out.stderr).toMatch(/is full: the last change was not saved; everything saved before is intact/);
      const next = await runCli(['history', '--json', '--db', db], NO_GPU_ENV);
      expect(next.code).toBe(0);
      expect(JSON.parse(next.stdout).find((r: { id: number }) => r.id === 2).status).toBe('interrupted');
      return;
    }
    expect(second!.status).toBe('done');
    expect(second!.total).toBeGreaterThan(900);
    expect(second!.stored).toBeLessThan(second!.total);
    expect(second!.error).toMatch(/^\d+ task events could not be saved: disk full$/);
    expect(Number(/^(\d+)/.exec(second!.error!)![1])).toBe(second!.total - second!.stored);
    expect(out.stderr).toMatch(/task events could not be saved: disk full \(recorded on the run\)/);
  }, 120_000);
});
