/**
 * WorkerPool.shutdown with `detach` (the CLI once its run is printed and stored): every worker is
 * sent `shutdown`, but main does not wait for its exit where the launcher can let go of the
 * process; those still alive when main exits are killed then (killDetached, main's 'exit').
 * Without `detach`, or with a launcher that cannot detach (Electron's utilityProcess), it waits
 * as before and kills a worker that lingers. The fake processes here never exit by themselves.
 */
import { describe, expect, it } from 'vitest';
import type { ToWorker } from '../../../common/messages';
import type { Discovery } from '../../../main/cluster/discovery';
import type { ExitInfo, LaunchedProcess, Launcher } from '../../../main/cluster/launcher';
import { WorkerPool } from '../../../main/cluster/pool';
import { killDetached } from '../../../main/cluster/worker-handle';

interface Fake {
  got: string[];
  killed: string[];
  detached: number;
}

/** Processes that answer init with ready, ignore shutdown, and end only when killed. */
function fakeLauncher(canDetach: boolean) {
  const procs: Fake[] = [];
  const launcher: Launcher = {
    kind: 'fork',
    launch(): LaunchedProcess {
      let onMsg: (raw: unknown) => void = () => undefined;
      let onExit: (e: ExitInfo) => void = () => undefined;
      const me: Fake = { got: [], killed: [], detached: 0 };
      procs.push(me);
      const p: LaunchedProcess = {
        pid: 2000 + procs.length,
        send(msg: ToWorker) {
          me.got.push(msg.type);
          if (msg.type === 'init') setTimeout(() => onMsg({ type: 'ready', pid: 1, address: { workerId: msg.config.id, host: '127.0.0.1', port: 1 }, backends: [] }), 1);
        },
        onMessage: (fn) => (onMsg = fn),
        onExit: (fn) => (onExit = fn),
        kill(signal) {
          me.killed.push(signal);
          setTimeout(() => onExit({ code: null, signal }), 1);
        },
      };
      if (canDetach) p.detach = () => void me.detached++;
      return p;
    },
  };
  return { launcher, procs };
}

const discovery: Discovery = { gpus: [], cpu: { cores: 2, model: 'test', memoryTotalBytes: 2 ** 33, memoryFreeBytes: 2 ** 32 } };

async function started(canDetach: boolean) {
  const { launcher, procs } = fakeLauncher(canDetach);
  const pool = new WorkerPool({ launcher, discovery, cpuWorkers: 1, virtualGpus: 1, restart: false });
  await pool.start();
  return { pool, procs };
}

describe('pool shutdown', () => {
  it('with detach: sends shutdown, lets go of the processes without waiting, and kills the ones alive at exit', async () => {
    const { pool, procs } = await started(true);
    expect(procs).toHaveLength(2);
    await pool.shutdown({ detach: true });
    for (const p of procs) {
      expect(p.got).toContain('shutdown');
      expect(p.detached).toBe(1);
      expect(p.killed).toEqual([]); // not waited for, not killed yet: main goes on to exit
    }
    expect([...pool.workers.values()].every((w) => w.alive)).toBe(true);
    killDetached(); // what main's 'exit' does
    for (const p of procs) expect(p.killed).toEqual(['SIGKILL']);
    await new Promise((r) => setTimeout(r, 20));
    expect([...pool.workers.values()].some((w) => w.alive)).toBe(false);
    killDetached(); // the ended ones are no longer there to kill
    for (const p of procs) expect(p.killed).toEqual(['SIGKILL']);
  });

  it('a launcher that cannot detach: waits, and kills a worker that lingers (as without detach)', async () => {
    const { pool, procs } = await started(false);
    await pool.shutdown({ detach: true });
    for (const p of procs) {
      expect(p.got).toContain('shutdown');
      expect(p.killed).toEqual(['SIGKILL']);
    }
    expect([...pool.workers.values()].some((w) => w.alive)).toBe(false);
  });
});
