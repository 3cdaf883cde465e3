/**
 * Faults inside the cluster: a task over its worker's memory limit (refused at compile time when
 * no worker could hold it; refused by the worker at run time otherwise) errs with a message naming
 * node, size and limit while a concurrent run goes on; a GPU worker whose device disappears has
 * its tasks moved to the other workers.
 */
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { planWorkers } from '../../main/cluster/pool';
import { Engine } from '../../main/engine/engine';
import { WorkflowError } from '../../main/engine/errors';
import { validateWorkflow } from '../../main/engine/validate';
import { runLocal } from '../helpers/local-run';
import { figures, seedDoc, tempDir } from './helpers';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const MiB = 1024 * 1024;

/** A random array materialised as the output: every block is held, 2 MB each. */
const bigBlocks = {
  format: 'gpuflow.workflow/1',
  name: 'held blocks',
  nodes: [{ id: 'held', op: 'random_normal', params: { shape: [2000, 2000], chunks: [500, 500], seed: 1 } }],
  edges: [],
};

describe('a task over its worker memory limit', () => {
  it('is refused before allocation when no worker could hold it, naming node, size and limit', async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    // No workers are started: compile only needs the plan's limits.
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, backends: ['js'] });
    planWorkers({ launcher: forkLauncher(), discovery: d, cpuWorkers: 1, backends: ['js'] }, 'no-token').forEach((p) => engine.pool.workers.set(p.config.id, { config: p.config } as never));
    const limit = engine.maxTaskBytes;
    const side = Math.ceil(Math.sqrt(limit / 8)) + 1000; // one float64 block bigger than any worker may hold
    const wf = validateWorkflow({ ...bigBlocks, nodes: [{ ...bigBlocks.nodes[0], params: { shape: [side, side], chunks: [side, side], seed: 1 } }] });
    let err: unknown;
    const t0 = performance.now();
    try {
      engine.compile(wf);
    } catch (e) {
      err = e;
    }
    figures('memory-compile-refusal', { limitBytes: limit, blockSide: side, ms: Math.round(performance.now() - t0), message: String((err as Error)?.message) });
    expect(err).toBeInstanceOf(WorkflowError);
    expect((err as WorkflowError).node).toBe('held');
    expect((err as Error).message).toMatch(/needs .*B but the largest worker may hold .*B/);
  });

  it('errs at run time on a worker with a small limit, with node, size and limit, while another run finishes', { timeout: 90_000 }, async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    // vgpu0 limited to 1 MiB (PoolOptions.memoryLimit per worker id); cpu0 keeps the default.
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, virtualGpus: 1, backends: ['js'], threadsPerCpuWorker: 1, memoryLimit: { vgpu0: 1 * MiB } });
    await engine.start();
    try {
      const seed = validateWorkflow(seedDoc(), { N: 3000, chunks: 250 });
      const expected = ((await runLocal(seedDoc(), { N: 3000, chunks: 250 })).total as { value: number }).value;
      const errors: string[] = [];
      const unsub = engine.bus.subscribe((e) => {
        if (e.type === 'task-error') errors.push(`${e.code}: ${e.message}`);
      });
      const big = engine.run(validateWorkflow(bigBlocks));
      const other = engine.run(seed);
      const [rb, ro] = await Promise.all([big.result, other.result]);
      unsub();
      figures('memory-runtime-refusal', { bigRun: rb.status, error: rb.error, errorNode: rb.errorNode, otherRun: ro.status, otherCorrect: (ro.results.total as { value: number })?.value === expected || Math.abs((ro.results.total as { value: number }).value - expected) < 1e-9 * expected });
      expect(rb.status).toBe('failed');
      expect(rb.errorNode).toBe('held');
      expect(rb.error).toMatch(/node 'held'.*output of \d+ bytes would exceed worker vgpu0's memory limit of 1048576 bytes/);
      expect(errors.some((m) => m.startsWith('memory:'))).toBe(true);
      expect(ro.status).toBe('finished');
      expect(Math.abs((ro.results.total as { value: number }).value - expected)).toBeLessThan(1e-9 * Math.abs(expected));
    } finally {
      await engine.shutdown();
    }
  });
});

describe('a GPU worker whose device disappears', () => {
  // 'placed': right after the run placed its first tasks on it (they are 'running' there, nothing
  // has finished yet). 'after 3': after it finished 3 tasks, so peers must refetch or recompute
  // what it held (failed the run through D1 before the fix).
  it.each(['placed', 'after 3'] as const)('%s: has its tasks moved to the other workers, and the answer is unchanged', { timeout: 90_000 }, async (when) => {
    const late = when === 'after 3';
    const dir = tempDir();
    dirs.push(dir);
    const smi = path.join(dir, 'nvidia-smi');
    writeFileSync(smi, '#!/bin/sh\necho "0, GPU-12345678-aaaa-bbbb-cccc-123456789abc, Fake GPU, 16000, 0, 0, 00000000:01:00.0, 550.00"\n');
    chmodSync(smi, 0o755);
    const d = await discover({ nvidiaSmi: smi, devicesEnv: '' });
    expect(d.gpus).toHaveLength(1);
    // No restart: the device is gone for good. The engine cannot mark a device gone (gap G2), so
    // the only way to keep a dead GPU out today is a pool that never restarts.
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, virtualGpus: 1, threadsPerCpuWorker: 1, restart: false });
    await engine.start();
    try {
      const gpu = engine.pool.workers.get('gpu0')!;
      const gpuBackends = gpu.backends.filter((b) => b.available).map((b) => b.name);
      const params = { N: 3000, chunks: 250 };
      const expected = ((await runLocal(seedDoc(), params)).total as { value: number }).value;
      let placedOnGpu = 0;
      let gpuTasksBefore = 0;
      let killed = false;
      const kill = () => {
        killed = true;
        process.kill(gpu.pid!, 'SIGKILL');
      };
      const unsub = engine.bus.subscribe((e) => {
        if (e.type === 'task-state' && e.to === 'running' && e.worker === 'gpu0') placedOnGpu++;
        if (late && !killed && e.type === 'task' && e.worker === 'gpu0' && ++gpuTasksBefore >= 3) kill();
      });
      const h = engine.run(validateWorkflow(seedDoc(), params));
      if (!late) kill();
      const r = await h.result;
      unsub();
      const byWorker = Object.fromEntries(r.stats.workers.map((w) => [w.id, w.tasks]));
      figures('gpu-device-gone', { when, gpuBackends, placedOnGpuBeforeKill: placedOnGpu, killedAfterGpuTasks: gpuTasksBefore, status: r.status, tasksByWorker: byWorker, value: (r.results.total as { value: number })?.value, expected });
      expect(killed).toBe(true);
      expect(placedOnGpu).toBeGreaterThan(0);
      expect(r.status, r.error).toBe('finished');
      expect(Math.abs((r.results.total as { value: number }).value - expected)).toBeLessThan(1e-9 * Math.abs(expected));
      expect((byWorker.cpu0 ?? 0) + (byWorker.vgpu0 ?? 0)).toBeGreaterThan(0);
      expect(engine.pool.workers.get('gpu0')!.alive).toBe(false);
    } finally {
      await engine.shutdown();
    }
  });
});
