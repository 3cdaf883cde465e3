/**
 * The pool's watchdog over fake worker processes: a silent idle worker is declared lost after
 * lostAfterMs, but a worker that has been given a task and not finished it (a long synchronous js
 * kernel blocks its heartbeat timer) gets busyLostAfterMs; any message counts as a sign of life.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FromWorker, ToWorker } from '../../../common/messages';
import type { Discovery } from '../../../main/cluster/discovery';
import type { ExitInfo, LaunchedProcess, Launcher } from '../../../main/cluster/launcher';
import { WorkerPool } from '../../../main/cluster/pool';
import type { WorkerEnd } from '../../../main/cluster/worker-handle';

/** Processes that answer init with ready and then say only what the test makes them say. */
function fakeLauncher() {
  const procs: { say: (m: FromWorker) => void; killed: string[] }[] = [];
  const launcher: Launcher = {
    kind: 'fork',
    launch(): LaunchedProcess {
      let onMsg: (raw: unknown) => void = () => undefined;
      let onExit: (e: ExitInfo) => void = () => undefined;
      const me = { say: (m: FromWorker) => onMsg(m), killed: [] as string[] };
      procs.push(me);
      return {
        pid: 1000 + procs.length,
        send(msg: ToWorker) {
          if (msg.type === 'init') setTimeout(() => onMsg({ type: 'ready', pid: 1, address: { workerId: msg.config.id, host: '127.0.0.1', port: 1 }, backends: [] }), 1);
          if (msg.type === 'shutdown') setTimeout(() => onExit({ code: 0, signal: null }), 1);
        },
        onMessage: (fn) => (onMsg = fn),
        onExit: (fn) => (onExit = fn),
        kill(signal) {
          me.killed.push(signal);
          setTimeout(() => onExit({ code: null, signal }), 1);
        },
      };
    },
  };
  return { launcher, procs };
}

const discovery: Discovery = { gpus: [], cpu: { cores: 2, model: 'test', memoryTotalBytes: 2 ** 33, memoryFreeBytes: 2 ** 32 } };
/** A task placed on the worker: it counts as busy from then until its done or error. */
const execute = (key: string): ToWorker => ({ type: 'execute', runId: 'r', key, node: 'n', op: 'combine', spec: { kind: 'combine', finalize: false }, deps: [] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for the worker's end (load only ever delays the watchdog, so "not yet" checks are safe). */
async function lost(ends: WorkerEnd[], withinMs = 8000): Promise<string[]> {
  const until = Date.now() + withinMs;
  while (ends.length === 0 && Date.now() < until) await sleep(20);
  return ends.map((e) => e.reason);
}
let pool: WorkerPool | null = null;
afterEach(async () => {
  await pool?.shutdown();
  pool = null;
});

async function start(): Promise<{ ends: WorkerEnd[]; say: (m: FromWorker) => void }> {
  const { launcher, procs } = fakeLauncher();
  pool = new WorkerPool({ launcher, discovery, cpuWorkers: 1, restart: false, lostAfterMs: 200, busyLostAfterMs: 3000 });
  const ends: WorkerEnd[] = [];
  pool.listen({ down: (_w, end) => ends.push(end) });
  await pool.start();
  return { ends, say: procs[0].say };
}

describe('pool watchdog', () => {
  it('declares a silent idle worker lost after lostAfterMs', async () => {
    const { ends } = await start();
    const t0 = Date.now();
    expect(await lost(ends)).toEqual(['heartbeat-timeout']);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
  });

  it('gives a worker running a task busyLostAfterMs, then the idle limit again once it is done', async () => {
    const { ends, say } = await start();
    pool!.send('cpu0', execute('a'));
    await sleep(700);
    expect(ends).toEqual([]);
    say({ type: 'done', key: 'a', bytes: 8, backend: 'js', startedAt: 0, endedAt: 1, transfers: [] });
    await sleep(100);
    expect(ends).toEqual([]);
    // Idle again: the 200 ms limit, well before the busy limit of 3000 ms.
    const t0 = Date.now();
    expect(await lost(ends)).toEqual(['heartbeat-timeout']);
    expect(Date.now() - t0).toBeLessThan(2500);
  });

  it('still declares a busy worker lost when it stays silent past busyLostAfterMs', async () => {
    const { ends, say } = await start();
    pool!.send('cpu0', execute('a'));
    await sleep(2000);
    expect(ends).toEqual([]);
    expect(await lost(ends)).toEqual(['heartbeat-timeout']);
  });
});
