/**
 * WorkerPool.lendGpuWorkers (serve: a search whose trials share GPUs): the pool starts the GPU
 * workers a k-per-GPU plan has beyond its own, marks them lent (kept from every other run and
 * compile: ownWorkers), shares them between runs that ask at once, and stops them when the last
 * lease is released; nothing is lent without GPU workers or for as many per GPU as the pool has.
 * The fake processes answer init with ready and exit when told to shut down.
 */
import { describe, expect, it } from 'vitest';
import type { ToWorker } from '../../../common/messages';
import { parseNvidiaSmi, type Discovery } from '../../../main/cluster/discovery';
import type { ExitInfo, LaunchedProcess, Launcher } from '../../../main/cluster/launcher';
import { WorkerPool } from '../../../main/cluster/pool';

const SMI = [
  '0, GPU-11111111-2222-3333-4444-555555555555, NVIDIA H100, 81559, 0, 0, 00000000:18:00.0, 580.1',
  '1, GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee, NVIDIA H100, 81559, 0, 0, 00000000:2A:00.0, 580.1',
].join('\n');
const MiB = 1024 * 1024;
const SHARING = { perDevice: 4, why: 'small trials' };

/** `readyAfterMs`: how long a process takes to say ready (null: never). */
function fakeLauncher(readyAfterMs: number | null = 1) {
  const started: string[] = [];
  const launcher: Launcher = {
    kind: 'fork',
    launch(): LaunchedProcess {
      let onMsg: (raw: unknown) => void = () => undefined;
      let onExit: (e: ExitInfo) => void = () => undefined;
      return {
        pid: 3000 + started.length,
        send(msg: ToWorker) {
          if (msg.type === 'init') {
            started.push(msg.config.id);
            if (readyAfterMs !== null) setTimeout(() => onMsg({ type: 'ready', pid: 1, address: { workerId: msg.config.id, host: '127.0.0.1', port: 1 }, backends: [] }), readyAfterMs);
          }
          if (msg.type === 'shutdown') setTimeout(() => onExit({ code: 0, signal: null }), 1);
        },
        onMessage: (fn) => (onMsg = fn),
        onExit: (fn) => (onExit = fn),
        kill: (signal) => setTimeout(() => onExit({ code: null, signal }), 1),
      };
    },
  };
  return { launcher, started };
}

function discovery(gpus: number): Discovery {
  return { gpus: parseNvidiaSmi(SMI).gpus.slice(0, gpus), cpu: { cores: 4, model: 'test', memoryTotalBytes: 2 ** 34, memoryFreeBytes: 2 ** 33 } };
}

const ids = (pool: WorkerPool) => [...pool.workers.keys()].sort();
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

describe('GPU workers lent for a run', () => {
  it('starts 3 more per GPU, kept from other runs, shared by two leases and stopped after the last', async () => {
    const { launcher, started } = fakeLauncher();
    const pool = new WorkerPool({ launcher, discovery: discovery(2), cpuWorkers: 1, restart: false });
    await pool.start();
    expect(ids(pool)).toEqual(['cpu0', 'gpu0', 'gpu1']);

    const a = pool.lendGpuWorkers(SHARING)!;
    expect(a.sharing).toEqual(SHARING);
    const lent = ['gpu0-1', 'gpu0-2', 'gpu0-3', 'gpu1-1', 'gpu1-2', 'gpu1-3'];
    expect(ids(pool)).toEqual(['cpu0', 'gpu0', 'gpu0-1', 'gpu0-2', 'gpu0-3', 'gpu1', 'gpu1-1', 'gpu1-2', 'gpu1-3']);
    expect(lent.every((id) => pool.isLent(id))).toBe(true);
    expect(['cpu0', 'gpu0', 'gpu1'].some((id) => pool.isLent(id))).toBe(false);
    expect(pool.ownWorkers.map((w) => w.id).sort()).toEqual(['cpu0', 'gpu0', 'gpu1']);
    // Each lent worker gets a quarter of its GPU's share; the pool's own keeps its whole.
    expect(pool.workers.get('gpu1-2')!.config.memoryLimit).toBe((81559 * MiB * 0.9) / 4);
    expect(pool.workers.get('gpu1')!.config.memoryLimit).toBe(81559 * MiB * 0.9);
    expect(pool.workers.get('gpu0-3')!.config.label).toBe('NVIDIA H100 (worker 4 of 4)');
    // The pool's own count is what other runs record.
    expect(pool.gpuSharing).toEqual({ perDevice: 1, why: 'one per GPU (default)' });
    await until(() => pool.ready.length === 9);

    // A second run at once shares them: no more processes.
    const b = pool.lendGpuWorkers(SHARING)!;
    expect(started).toHaveLength(9);
    a.release();
    a.release();
    expect(ids(pool)).toHaveLength(9);
    b.release();
    // Stopping, they are still kept from other runs until they have ended.
    expect(lent.every((id) => !pool.workers.has(id) || pool.isLent(id))).toBe(true);
    expect(pool.ownWorkers.map((w) => w.id).sort()).toEqual(['cpu0', 'gpu0', 'gpu1']);
    await until(() => ids(pool).length === 3);
    expect(ids(pool)).toEqual(['cpu0', 'gpu0', 'gpu1']);
    expect(pool.leftOut.size + pool.gone.size).toBe(0);

    // Lent again later: new processes under the same ids.
    const c = pool.lendGpuWorkers(SHARING)!;
    await until(() => started.length === 15);
    c.release();
    await until(() => ids(pool).length === 3);
    await pool.shutdown();
  });

  it('lent again while the last set is stopping: the new processes take the ids, none is kept from runs after', async () => {
    const { launcher, started } = fakeLauncher();
    const pool = new WorkerPool({ launcher, discovery: discovery(1), cpuWorkers: 0, restart: false });
    await pool.start();
    pool.lendGpuWorkers(SHARING)!.release();
    const again = pool.lendGpuWorkers(SHARING)!;
    await until(() => pool.ready.length === 4);
    expect(started.filter((id) => id === 'gpu0-1').length).toBeGreaterThan(0);
    expect(ids(pool)).toEqual(['gpu0', 'gpu0-1', 'gpu0-2', 'gpu0-3']);
    again.release();
    await until(() => ids(pool).length === 1);
    expect(['gpu0-1', 'gpu0-2', 'gpu0-3'].some((id) => pool.isLent(id))).toBe(false);
    await pool.shutdown();
  });

  it('lends nothing for one per GPU, or without GPU workers', async () => {
    const { launcher } = fakeLauncher();
    const gpus = new WorkerPool({ launcher, discovery: discovery(1), cpuWorkers: 0, restart: false });
    await gpus.start();
    expect(gpus.lendGpuWorkers({ perDevice: 1, why: 'one' })).toBeNull();
    expect(ids(gpus)).toEqual(['gpu0']);
    await gpus.shutdown();
    const cpus = new WorkerPool({ launcher, discovery: discovery(0), cpuWorkers: 1, virtualGpus: 2, restart: false });
    await cpus.start();
    expect(cpus.lendGpuWorkers(SHARING)).toBeNull();
    expect(ids(cpus)).toEqual(['cpu0', 'vgpu0', 'vgpu1']);
    await cpus.shutdown();
  });

  it('a lent worker released before it is ready is neither tried again nor left out', async () => {
    const { launcher, started } = fakeLauncher(null);
    const pool = new WorkerPool({ launcher, discovery: discovery(1), cpuWorkers: 1, gpuWorkersPerDevice: 1, restart: false, startBackoffMs: 1 });
    // No process here ever says ready: the pool's own start is left running, not awaited.
    void pool.start(200).catch(() => undefined);
    await until(() => started.length === 2);
    const lease = pool.lendGpuWorkers(SHARING)!;
    await until(() => started.length === 5);
    expect(started).toEqual(['gpu0', 'cpu0', 'gpu0-1', 'gpu0-2', 'gpu0-3']);
    lease.release();
    await until(() => !pool.workers.has('gpu0-1') && !pool.workers.has('gpu0-3'));
    await new Promise((r) => setTimeout(r, 50));
    expect(started.filter((id) => id.startsWith('gpu0-'))).toHaveLength(3);
    expect([...pool.leftOut.keys()].filter((id) => id.startsWith('gpu0-'))).toEqual([]);
    await pool.shutdown();
  });
});
