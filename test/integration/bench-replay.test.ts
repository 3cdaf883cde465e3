import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDb } from './cli-helpers';

const small = ['--param', 'N=1200', '--param', 'chunks=300'];

describe('benchmarks, history, replay, export and import (CLI, on-disk database)', () => {
  it('bench saves four configurations, virtual ones labelled, with agreeing digests', async () => {
    const db = tempDb();
    const r = await runCli(['bench', 'examples/seed-benchmark.json', '--virtual-gpus', '2', '--repeat', '2', '--warmup', '1', '--json', '--backend', 'js', ...small], { GPUFLOW_DB: db, GPUFLOW_NVIDIA_SMI: '/nonexistent' }, 240_000);
    expect(r.code).toBe(0);
    const b = JSON.parse(r.stdout);
    expect(b.configs.map((c: { name: string }) => c.name)).toEqual(['1 CPU core', 'all CPU cores', '1 GPU', 'all GPUs']);
    expect(b.configs.map((c: { virtual: boolean }) => c.virtual)).toEqual([false, false, true, true]);
    expect(b.configs.map((c: { workers: number }) => c.workers)).toEqual([1, expect.any(Number), 1, 2]);
    for (const c of b.configs) {
      expect(c.available).toBe(true);
      expect(c.times).toHaveLength(2);
    }
    expect(new Set(b.configs.map((c: { digest: string }) => c.digest)).size).toBe(1);
    expect(b.digestsAgree).toBe(true);
    // Without virtual GPUs the GPU rows are unavailable with the reason, never faked.
    const none = JSON.parse((await runCli(['bench', 'examples/seed-benchmark.json', '--repeat', '1', '--warmup', '0', '--json', '--backend', 'js', ...small], { GPUFLOW_DB: db, GPUFLOW_NVIDIA_SMI: '/nonexistent' }, 240_000)).stdout);
    expect(none.configs[2]).toMatchObject({ name: '1 GPU', available: false, unavailableReason: expect.stringMatching(/no GPU/) });
  });

  it('replay re-runs a stored run and reports the digest equal; export/import round-trips', async () => {
    const db = tempDb();
    const env = { GPUFLOW_DB: db };
    const run = JSON.parse((await runCli(['run', 'examples/seed-benchmark.json', '--json', '--backend', 'js', '--virtual-gpus', '1', ...small], env)).stdout);
    expect(run.status).toBe('finished');
    const replay = await runCli(['replay', String(run.storeId), '--json', '--backend', 'js'], env);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ original: run.storeId, match: true, originalDigest: run.digest, replayDigest: run.digest });
    const hist = JSON.parse((await runCli(['history', '--json'], env)).stdout);
    expect(hist.map((h: { status: string }) => h.status)).toEqual(['done', 'done']);
    expect(hist.find((h: { replayOf: number | null }) => h.replayOf === run.storeId)).toBeTruthy();

    const file = path.join(mkdtempSync(path.join(tmpdir(), 'export-')), 'runs.json');
    expect((await runCli(['export', String(run.storeId), '--out', file], env)).code).toBe(0);
    const other = { GPUFLOW_DB: tempDb() };
    const first = JSON.parse((await runCli(['import', file, '--json'], other)).stdout);
    const again = JSON.parse((await runCli(['import', file, '--json'], other)).stdout);
    expect(first).toMatchObject({ runsAdded: [expect.any(Number)], workflowsAdded: 1 });
    expect(again).toMatchObject({ runsAdded: [], runsSkipped: [expect.any(String)], workflowsAdded: 0 });
    // The imported run replays on the other database with the same digest.
    const imported = JSON.parse((await runCli(['history', '--json'], other)).stdout)[0];
    const replay2 = JSON.parse((await runCli(['replay', String(imported.id), '--json', '--backend', 'js'], other)).stdout);
    expect(replay2.match).toBe(true);
  });
});
