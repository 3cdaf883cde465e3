/**
 * Faults inside the cluster: a task over its worker's memory limit (refused at compile time when
 * no worker could hold it; refused by the worker at run time otherwise) errs with a message naming
 * node, size and limit while a concurrent run goes on; a GPU worker whose device disappears has
 * its tasks moved to the other workers: killed (F8), reporting a lost device (F9: marked gone, not
 * restarted; an ordinary kernel error still fails the run), or no longer listed by nvidia-smi when
 * the pool would restart it (F10).
 */
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { planWorkers } from '../../main/cluster/pool';
import { Engine } from '../../main/engine/engine';
import type { EngineEvent } from '../../common/events';
import { WorkflowError } from '../../main/engine/errors';
import { validateWorkflow } from '../../main/engine/validate';
import { runLocal } from '../helpers/local-run';
import { figures, seedDoc, startWith, tempDir } from './helpers';

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
    planWorkers({ discovery: d, cpuWorkers: 1, backends: ['js'] }, 'no-token').forEach((p) => engine.pool.workers.set(p.config.id, { config: p.config } as never));
    const limit = engine.maxTaskBytes!;
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
    // No restart: this checks only that its tasks move. F10 below checks that a restarting pool
    // marks the GPU gone once nvidia-smi no longer lists it.
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

const total = (results: Record<string, unknown>) => (results.total as { value: number } | undefined)?.value;

describe('a GPU worker that reports a lost device (F9)', () => {
  const params = { N: 3000, chunks: 250 };

  it('is marked gone and not restarted; its tasks run elsewhere and the answer is unchanged', { timeout: 90_000 }, async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, virtualGpus: 3, backends: ['js'], threadsPerCpuWorker: 1 });
    const events: EngineEvent[] = [];
    const unsub = engine.bus.subscribe((e) => void events.push(e));
    // vgpu1's "device" fails every kernel call after its third, as the addon does for cudaErrorDevicesUnavailable.
    await startWith(engine, { GPUFLOW_FAULT_DEVICE_LOST_AFTER: 'vgpu1:3' });
    try {
      const expected = total(await runLocal(seedDoc(), params))!;
      const vgpu1 = engine.pool.workers.get('vgpu1')!;
      const r = await engine.run(validateWorkflow(seedDoc(), params)).result;
      await vgpu1.waitForExit(5000);
      // A second run on the same pool: vgpu1 gets nothing.
      const r2 = await engine.run(validateWorkflow(seedDoc(), { N: 1000, chunks: 250 })).result;
      const expected2 = total(await runLocal(seedDoc(), { N: 1000, chunks: 250 }))!;
      unsub();
      const mine = events.filter((e): e is Extract<EngineEvent, { type: 'worker' }> => e.type === 'worker' && e.worker === 'vgpu1');
      const deviceErrors = events.filter((e): e is Extract<EngineEvent, { type: 'task-error' }> => e.type === 'task-error' && e.code === 'device');
      const movedKeys = new Set(events.filter((e) => e.type === 'task-state' && e.runId === r.runId && e.worker === 'vgpu1' && e.from === 'running' && e.to === 'waiting').map((e) => (e as { key: string }).key));
      const ranElsewhere = new Set(events.filter((e) => e.type === 'task' && e.runId === r.runId && movedKeys.has(e.key) && e.worker !== 'vgpu1').map((e) => (e as { key: string }).key)).size;
      const byWorker = Object.fromEntries(r.stats.workers.map((w) => [w.id, w.tasks]));
      const byWorker2 = Object.fromEntries(r2.stats.workers.map((w) => [w.id, w.tasks]));
      figures('gpu-device-lost', { tasks: r.stats.tasks, status: r.status, value: total(r.results), expected, deviceErrors: deviceErrors.length, tasksMovedOffVgpu1: movedKeys.size, ranElsewhere, tasksByWorker: byWorker, vgpu1Events: mine.map((e) => `${e.state}${e.reason ? ` (${e.reason.slice(0, 60)})` : ''}`), gone: engine.pool.gone.get('vgpu1'), restarts: engine.pool.restarts.get('vgpu1') ?? 0, secondRun: { status: r2.status, tasksByWorker: byWorker2 } });
      expect(r.status, r.error).toBe('finished');
      expect(Math.abs(total(r.results)! - expected)).toBeLessThan(1e-9 * Math.abs(expected));
      // Marked gone, stopped, not restarted.
      expect(deviceErrors.length).toBeGreaterThan(0);
      expect(deviceErrors.every((e) => e.worker === 'vgpu1' && /\(cudaErrorDevicesUnavailable\)$/.test(e.message))).toBe(true);
      expect(engine.pool.gone.get('vgpu1')).toMatch(/^device lost: CUDA kernel launch: .*\(cudaErrorDevicesUnavailable\)$/);
      expect(vgpu1.alive).toBe(false);
      expect(engine.pool.workers.get('vgpu1')).toBe(vgpu1);
      expect(engine.pool.restarts.get('vgpu1') ?? 0).toBe(0);
      expect(mine.map((e) => e.state)).toEqual(['up', 'gone', 'down']);
      expect(mine[2].reason).toBe('device-lost');
      expect(engine.pool.ready.map((w) => w.id).sort()).toEqual(['cpu0', 'vgpu0', 'vgpu2']);
      // It finished its 3 kernel calls (and maybe combines), then its tasks ran on the others.
      expect(byWorker.vgpu1).toBeGreaterThanOrEqual(3);
      expect(movedKeys.size).toBeGreaterThan(0);
      expect(ranElsewhere).toBe(movedKeys.size); // every task moved off vgpu1 ran on another worker
      expect(r2.status, r2.error).toBe('finished');
      expect(Math.abs(total(r2.results)! - expected2)).toBeLessThan(1e-9 * Math.abs(expected2));
      expect(byWorker2.vgpu1 ?? 0).toBe(0);
    } finally {
      await engine.shutdown();
    }
  });

  it('fails the run with a clear message when no worker is left', { timeout: 90_000 }, async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 0, virtualGpus: 1, backends: ['js'] });
    await startWith(engine, { GPUFLOW_FAULT_DEVICE_LOST_AFTER: 'vgpu0:2' });
    try {
      const r = await engine.run(validateWorkflow(seedDoc(), params)).result;
      figures('gpu-device-lost-last-worker', { status: r.status, error: r.error, errorNode: r.errorNode });
      expect(r.status).toBe('failed');
      expect(r.error).toMatch(/^no worker left to run the work \(node '\w+'\): gone: vgpu0 \(device lost: CUDA kernel launch: .*cudaErrorDevicesUnavailable\)\)$/);
      expect(engine.pool.gone.has('vgpu0')).toBe(true);
    } finally {
      await engine.shutdown();
    }
  });

  it('an ordinary kernel error still fails the run, naming the node; the worker is not marked gone', { timeout: 90_000 }, async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, virtualGpus: 1, backends: ['js'], threadsPerCpuWorker: 1 });
    const errors: Array<Extract<EngineEvent, { type: 'task-error' }>> = [];
    const unsub = engine.bus.subscribe((e) => void (e.type === 'task-error' && errors.push(e)));
    await startWith(engine, { GPUFLOW_FAULT_KERNEL_ERROR_AFTER: 'vgpu0:2' });
    try {
      const r = await engine.run(validateWorkflow(seedDoc(), params)).result;
      unsub();
      figures('gpu-kernel-error', { status: r.status, error: r.error, errorNode: r.errorNode, gone: [...engine.pool.gone.keys()] });
      expect(r.status).toBe('failed');
      expect(errors[0]).toMatchObject({ worker: 'vgpu0', code: undefined });
      expect(r.errorNode).toBe(errors[0].node);
      expect(r.error).toBe(`node '${errors[0].node}': task ${errors[0].key} failed on vgpu0: CUDA kernel launch: invalid argument (cudaErrorInvalidValue)`);
      expect(engine.pool.gone.size).toBe(0);
      expect(engine.pool.workers.get('vgpu0')!.alive).toBe(true);
    } finally {
      await engine.shutdown();
    }
  });
});

describe('a GPU worker that died and whose GPU is no longer listed (F10)', () => {
  it('is restarted while nvidia-smi lists its GPU, marked gone once it does not; the run finishes', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    dirs.push(dir);
    const list = path.join(dir, 'gpus.csv');
    const smi = path.join(dir, 'nvidia-smi');
    const uuid = 'GPU-12345678-aaaa-bbbb-cccc-123456789abc';
    writeFileSync(list, `0, ${uuid}, Fake GPU, 16000, 0, 0, 00000000:01:00.0, 550.00\n`);
    writeFileSync(smi, `#!/bin/sh\ncat '${list}'\n`);
    chmodSync(smi, 0o755);
    const d = await discover({ nvidiaSmi: smi, devicesEnv: '' });
    expect(d.gpus).toHaveLength(1);
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, virtualGpus: 1, threadsPerCpuWorker: 1, backends: ['js'], rediscover: () => discover({ nvidiaSmi: smi, devicesEnv: '' }) });
    await engine.start();
    try {
      const params = { N: 3000, chunks: 250 };
      const expected = total(await runLocal(seedDoc(), params))!;
      const states: string[] = [];
      let gpuTasks = 0;
      let secondKilled = false;
      const goneSeen = new Promise<void>((resolve) => {
        engine.bus.subscribe((e) => {
          if (e.type === 'worker' && e.worker === 'gpu0') {
            states.push(e.state);
            if (e.state === 'gone') resolve();
            // The restarted gpu0 is up: now its GPU "falls off the bus" and it dies again.
            if (e.state === 'up' && states.length > 1 && !secondKilled) {
              secondKilled = true;
              writeFileSync(list, '');
              process.kill(e.pid!, 'SIGKILL');
            }
          }
          // First death while the GPU is still listed: the pool restarts it.
          if (e.type === 'task' && e.worker === 'gpu0' && ++gpuTasks === 3) process.kill(engine.pool.workers.get('gpu0')!.pid!, 'SIGKILL');
        });
      });
      const r = await engine.run(validateWorkflow(seedDoc(), params)).result;
      await goneSeen;
      const byWorker = Object.fromEntries(r.stats.workers.map((w) => [w.id, w.tasks]));
      figures('gpu-no-longer-listed', { status: r.status, value: total(r.results), expected, gpu0Events: states, restarts: engine.pool.restarts.get('gpu0') ?? 0, gone: engine.pool.gone.get('gpu0'), tasksByWorker: byWorker });
      expect(r.status, r.error).toBe('finished');
      expect(Math.abs(total(r.results)! - expected)).toBeLessThan(1e-9 * Math.abs(expected));
      expect(states).toEqual(['down', 'up', 'down', 'gone']);
      expect(engine.pool.restarts.get('gpu0')).toBe(1);
      expect(engine.pool.gone.get('gpu0')).toBe(`GPU ${uuid} is no longer listed by nvidia-smi (nvidia-smi lists no GPUs)`);
      expect(engine.pool.workers.get('gpu0')!.alive).toBe(false);
      expect(engine.pool.ready.map((w) => w.id).sort()).toEqual(['cpu0', 'vgpu0']);
    } finally {
      await engine.shutdown();
    }
  });
});
