// Transfer statistics through the whole engine on CPU-backed workers: a 4 x 4 block matmul on two
// virtual GPUs (test/gpu/ipc-matmul.json), whose blocks must move between them. Virtual GPUs keep
// no device copies, so every transfer goes through the host, counted as such with its reason,
// and the answer equals the js reference run in this process (test/helpers/local-run.ts).
// The device-to-device side is test/gpu/ipc-checks.ts (GPU machine).
//
// Then two GPU workers on one (listed, CPU-backed) GPU, GPUFLOW_GPU_WORKERS_PER_DEVICE=2: the
// matmul runs SUMMA-like (main/engine/scheduler/placement.ts), each worker fetching the 8 A blocks
// it does not own once (shared by its concurrent tasks, kept for later ones): 16 transfers.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../common/results';
import { runLocal } from '../helpers/local-run';
import { runCli } from './cli-helpers';

describe('transfer statistics', () => {
  it('count host transfers with their reason, and none by IPC, on CPU-backed workers', async () => {
    const params = { N: 256, chunks: 64 };
    const r = await runCli(['run', 'test/gpu/ipc-matmul.json', '--json', '--no-store', '--no-gpus', '--virtual-gpus', '2', '--cpu-workers', '0', '--param', 'N=256', '--param', 'chunks=64']);
    expect(r.code, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout) as RunResult;
    expect(res.status).toBe('finished');
    const t = res.stats.transfers;
    expect(t.count).toBeGreaterThan(0);
    expect(t.ipc).toEqual({ count: 0, bytes: 0 });
    expect(t.host).toEqual({ count: t.count, bytes: t.bytes });
    expect(t.hostReasons).toEqual({ 'this worker keeps no device copies (virtual-gpu worker)': t.count });
    // 64 x 64 float64 blocks: each transfer is one 32 KiB block.
    expect(t.bytes).toBe(t.count * 64 * 64 * 8);
    const want = await runLocal(JSON.parse(readFileSync('test/gpu/ipc-matmul.json', 'utf8')), params);
    const got = res.results.c;
    const ref = want.c;
    if (got?.kind !== 'array' || ref?.kind !== 'array') throw new Error('expected array results');
    expect(got.data!.length).toBe(256 * 256);
    expect(got.data!.every((v, i) => Math.abs(v - ref.data![i]) <= 1e-9 * Math.abs(ref.data![i]))).toBe(true);
  }, 120_000);

  it('moves each remote A block once when two GPU workers share a GPU', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-smi-'));
    const smi = path.join(dir, 'nvidia-smi');
    writeFileSync(smi, '#!/bin/sh\necho "0, GPU-11111111-2222-3333-4444-555555555555, Test GPU, 81559, 0, 0, 00000000:18:00.0, 580.1"\n');
    chmodSync(smi, 0o755);
    const r = await runCli(['run', 'test/gpu/ipc-matmul.json', '--json', '--no-store', '--cpu-workers', '0', '--backend', 'native-cpu', '--param', 'N=256', '--param', 'chunks=64'], {
      GPUFLOW_NVIDIA_SMI: smi,
      GPUFLOW_DEVICES: '0',
      GPUFLOW_GPU_WORKERS_PER_DEVICE: '2',
      // The grid split this test counts is the one made with both workers ready; by default a run
      // starts on the first ready GPU worker and an idle one takes parked work (timing-dependent).
      GPUFLOW_START_ON_FIRST: '0',
    });
    expect(r.code, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout) as RunResult;
    expect(res.stats.workers.map((w) => [w.id, w.tasks])).toEqual([['gpu0', 24], ['gpu0-1', 24]]);
    expect(res.stats.transfers).toMatchObject({ count: 16, bytes: 16 * 64 * 64 * 8, hostReasons: { 'this worker keeps no device copies (the cuda backend is not loaded)': 16 } });
  }, 120_000);
});
