/**
 * A worker that dies while starting (issue 18, item 5), made to with the test-only fault
 * GPUFLOW_FAULT_START_EXIT (worker/faults.ts): its start is tried again with a pause, and a worker
 * that never starts is left out: the run goes on with the others and gives the single-process
 * answer (the js reference runner), and the run's record (stats, the store's devices), the CLI and
 * the event stream name the worker left out. Only when no worker starts does start-up fail.
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../common/events';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { runLocal } from '../helpers/local-run';
import { runCli } from '../integration/cli-helpers';
import { NO_GPU_ENV, seedDoc, startWith, tempDir } from './helpers';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const params = { N: 2000, chunks: 250 };

describe('a worker that dies while starting', () => {
  it('is left out after its tries; the CLI run finishes on the others, and its record, JSON and warning name it', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = path.join(dir, 'gpuflow.db');
    const env = { ...NO_GPU_ENV, GPUFLOW_DB: db, GPUFLOW_FAULT_START_EXIT: 'vgpu1:99' };
    const r = await runCli(['run', 'examples/seed-benchmark.json', '--virtual-gpus', '2', '--backend', 'js', '--threads', '1', '--json', '--param', `N=${params.N}`, '--param', `chunks=${params.chunks}`], env, 240_000);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('finished');
    expect(out.results.total.value).toBe(((await runLocal(seedDoc(), params)).total as { value: number }).value);
    expect(Object.keys(out.tasksPerWorker).sort()).toEqual(['cpu0', 'vgpu0']);
    expect(out.stats.leftOut).toEqual([{ worker: 'vgpu1', reason: expect.stringMatching(/left out: did not start after 3 tries: worker vgpu1 ended before it was ready/) }]);
    // Three tries, two pauses between them.
    expect(r.stderr.match(/\[vgpu1\] start \d of 3 failed/g)).toHaveLength(2);
    expect(r.stderr).toMatch(/warning: worker vgpu1 left out of run \d+: left out: did not start after 3 tries/);
    expect(existsSync(db)).toBe(true);
    const row = new Database(db, { readonly: true }).prepare('SELECT status, devices FROM runs').get() as { status: string; devices: string };
    expect(row.status).toBe('done');
    const devices = JSON.parse(row.devices) as { id: string; leftOut?: string }[];
    expect(devices.map((d) => d.id).sort()).toEqual(['cpu0', 'vgpu0', 'vgpu1']);
    expect(devices.find((d) => d.id === 'vgpu1')?.leftOut).toMatch(/did not start after 3 tries/);
    expect(devices.filter((d) => d.leftOut !== undefined)).toHaveLength(1);
  }, 240_000);

  it('starts on a later try when the first fails: nothing left out, every worker runs tasks', async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const engine = new Engine(d, { launcher: forkLauncher(), virtualGpus: 1, backends: ['js'], threadsPerCpuWorker: 1, startBackoffMs: 50 });
    const events: EngineEvent[] = [];
    const unsub = engine.bus.subscribe((e) => events.push(e));
    await startWith(engine, { GPUFLOW_FAULT_START_EXIT: 'vgpu0:1' });
    try {
      expect(engine.pool.leftOut.size).toBe(0);
      expect(engine.pool.ready.map((w) => w.id).sort()).toEqual(['cpu0', 'vgpu0']);
      const r = await engine.run(validateWorkflow(seedDoc(), params)).result;
      expect(r.status).toBe('finished');
      expect(r.stats.leftOut).toBeUndefined();
      expect(r.stats.workers.map((w) => w.id).sort()).toEqual(['cpu0', 'vgpu0']);
      expect(events.filter((e) => e.type === 'worker' && e.worker === 'vgpu0').map((e) => e.type === 'worker' && e.state)).toEqual(['down', 'up']);
    } finally {
      unsub();
      await engine.shutdown();
    }
  }, 120_000);

  it('a worker left out is announced as gone with the reason; start-up fails only when no worker starts', async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const one = new Engine(d, { launcher: forkLauncher(), virtualGpus: 1, backends: ['js'], threadsPerCpuWorker: 1, startAttempts: 2, startBackoffMs: 50 });
    const events: EngineEvent[] = [];
    const unsub = one.bus.subscribe((e) => events.push(e));
    await startWith(one, { GPUFLOW_FAULT_START_EXIT: 'vgpu0:2' });
    try {
      expect([...one.pool.leftOut.keys()]).toEqual(['vgpu0']);
      expect(events.find((e) => e.type === 'worker' && e.state === 'gone')).toMatchObject({ worker: 'vgpu0', reason: expect.stringMatching(/did not start after 2 tries/) });
    } finally {
      unsub();
      await one.shutdown();
    }
    const none = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, backends: ['js'], threadsPerCpuWorker: 1, startAttempts: 1 });
    await expect(startWith(none, { GPUFLOW_FAULT_START_EXIT: 'cpu0:1' })).rejects.toThrow(/no worker started \(cpu0: did not start after 1 try/);
    await none.shutdown();
  }, 120_000);
});
