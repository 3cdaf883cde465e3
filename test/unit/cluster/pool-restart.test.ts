/**
 * Restarts with backoff and a limit: a worker that keeps dying is restarted after 1x, 2x, 4x… the
 * base delay, given up (marked gone, with its count and last end) after maxRestarts within the
 * window, and started again by restart(id). Fake processes: each is ready, then dies when told.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ToWorker } from '../../../common/messages';
import type { Discovery } from '../../../main/cluster/discovery';
import type { ExitInfo, LaunchedProcess, Launcher } from '../../../main/cluster/launcher';
import { WorkerPool } from '../../../main/cluster/pool';

function dyingLauncher() {
  const procs: Array<{ die: (e: ExitInfo) => void; launchedAt: number }> = [];
  const launcher: Launcher = {
    kind: 'utility',
    launch(): LaunchedProcess {
      let onMsg: (raw: unknown) => void = () => undefined;
      let onExit: (e: ExitInfo) => void = () => undefined;
      let exited = false;
      const die = (e: ExitInfo) => {
        if (exited) return;
        exited = true;
        onExit(e);
      };
      procs.push({ die, launchedAt: Date.now() });
      return {
        pid: 2000 + procs.length,
        send(msg: ToWorker) {
          if (msg.type === 'init') setTimeout(() => onMsg({ type: 'ready', pid: 1, address: { workerId: msg.config.id, host: '127.0.0.1', port: 1 }, backends: [] }), 1);
          if (msg.type === 'shutdown') setTimeout(() => die({ code: 0, signal: null }), 1);
        },
        onMessage: (fn) => (onMsg = fn),
        onExit: (fn) => (onExit = fn),
        kill: () => setTimeout(() => die({ code: null, signal: 'SIGKILL' }), 1),
      };
    },
  };
  return { launcher, procs };
}

const discovery: Discovery = { gpus: [], cpu: { cores: 2, model: 'test', memoryTotalBytes: 2 ** 33, memoryFreeBytes: 2 ** 32 } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await sleep(5);
  }
}

let pool: WorkerPool | null = null;
afterEach(async () => {
  await pool?.shutdown();
  pool = null;
});

describe('worker restarts', () => {
  it('back off, stop after maxRestarts within the window with the last reason, and restart(id) starts afresh', async () => {
    const { launcher, procs } = dyingLauncher();
    const base = 40;
    pool = new WorkerPool({ launcher, discovery, cpuWorkers: 1, restartBackoffMs: base, maxRestarts: 3, restartWindowMs: 60_000 });
    const gone: string[] = [];
    pool.listen({ gone: (_w, reason) => gone.push(reason) });
    await pool.start();
    const deaths: number[] = [];
    for (let i = 0; i < 4; i++) {
      await until(() => procs.length === i + 1);
      await until(() => pool!.workers.get('cpu0')?.address !== null);
      deaths.push(Date.now());
      procs[i].die({ code: 134, signal: null, detail: 'oom' });
    }
    await until(() => gone.length === 1);
    // Each restart waited at least base * 2^(n-1) after the death before it (load only adds delay).
    for (let n = 1; n <= 3; n++) expect(procs[n].launchedAt - deaths[n - 1]).toBeGreaterThanOrEqual(base * 2 ** (n - 1) - 2);
    expect(pool.restarts.get('cpu0')).toBe(3);
    expect(procs).toHaveLength(4); // the fourth death was not followed by a fifth process
    expect(gone[0]).toMatch(/ended 4 times within 60 s \(last: crashed: oom, code 134/);
    expect(pool.gone.has('cpu0')).toBe(true);
    pool.restart('cpu0');
    await until(() => procs.length === 5);
    await until(() => pool!.ready.some((w) => w.id === 'cpu0'));
    expect(pool.gone.has('cpu0')).toBe(false);
  });
});
