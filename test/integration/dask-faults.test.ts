/**
 * The Dask target's faults against real `dask scheduler` / `dask worker` processes (Debian's
 * distributed): a scheduler without workers (a message at once, a deadline, exit 1), the
 * scheduler killed under serve's service (the target reads disconnected with the reason, and the
 * next run reconnects to the restarted scheduler), and a cluster switch while a run is in flight
 * (the run finishes; it is not recorded as cancelled by the user), a user's cancel (recorded as
 * such), the scheduler killed mid-run (named, the stored error bounded, the next run reconnects)
 * and serve's benchmark with the Dask target (a Dask row beside the four local configurations,
 * digests compared). One scheduler port per file.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../common/results';
import { benchRows } from '../../renderer/logic/bench-chart';
import { digestOf, runDigest } from '../../main/api/run-record';
import { ApiError, GpuflowService } from '../../main/api/service';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { DaskSetupError } from '../../main/dask/interpreter';
import { Engine } from '../../main/engine/engine';
import { openStore } from '../../main/store';
import { DASK_PYTHON, skipDask } from '../helpers/dask-cluster';
import { freePort, killed, startScheduler, startWorker } from '../helpers/dask-processes';
import { runLocal } from '../helpers/local-run';
import { runCli, tempDb } from './cli-helpers';

const example = (f: string) => JSON.parse(readFileSync(`examples/${f}`, 'utf8')) as unknown;
const seed = example('seed-benchmark.json');
const localDigest = async (params: Record<string, number>) => runDigest({ results: await runLocal(seed, params) } as RunResult);

async function until(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`not within ${timeoutMs / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolves at the first task event of `runId` (the run is under way on the cluster). */
function firstTask(svc: GpuflowService, runId: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const off = svc.subscribe((e) => e.type === 'task' && e.runId === runId && (off(), resolve()));
  });
}

/** pid -> parent pid of every process (from /proc). */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      out.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The Dask bridges this process runs (its children running gpuflow_dask.bridge), live ones only. */
function bridges(): number[] {
  return [...parents()].filter(([pid, ppid]) => ppid === process.pid && alive(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('gpuflow_dask.bridge')).map(([pid]) => pid);
}

/** `root` and every process below it. */
function tree(root: number): number[] {
  const ps = [...parents()];
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of ps) if (ppid === out[i]) out.push(pid);
  return out;
}

/** Exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    return existsSync(`/proc/${pid}`) && !/^\S+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe.skipIf(skipDask)('Dask faults on real scheduler and worker processes', () => {
  let port: number;
  let address: string;
  let scheduler: ChildProcess;
  const workers: ChildProcess[] = [];
  let svc: GpuflowService;

  beforeAll(async () => {
    port = await freePort();
    address = `tcp://127.0.0.1:${port}`;
    scheduler = await startScheduler(port);
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    // serve's service with no local workers: every run goes to the Dask target.
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 0, useGpus: false, backends: ['js'] });
    await engine.start();
    svc = new GpuflowService(engine, openStore(tempDb()), { launcher: forkLauncher(), virtualGpus: 0, backends: ['js'] });
  }, 120_000);

  afterAll(async () => {
    await svc?.close();
    await Promise.all([...workers, scheduler].filter(Boolean).map(killed));
  }, 60_000);

  /** After the scheduler's death: the target reads disconnected with the reason; with the scheduler restarted, the next run reconnects and gives the local digest. */
  async function disconnectedThenReconnects(): Promise<void> {
    await until('the target reads disconnected', () => svc.cluster().info?.connected === false);
    expect(svc.cluster().info?.lost).toContain(`lost the scheduler at ${address}`);
    scheduler = await startScheduler(port);
    workers.push(startWorker(address));
    const params = { N: 400, chunks: 100 };
    const r = await (await svc.runAsync(seed, { params })).done;
    expect(r.status, r.error).toBe('finished');
    expect(digestOf(r)).toBe(await localDigest(params));
    expect(svc.cluster().info?.connected).toBe(true);
  }

  it('a scheduler without workers: "waiting for workers" at once, then exit 1 at the --dask-wait deadline; no digest; a failed replay says why', async () => {
    const db = tempDb();
    const e = { GPUFLOW_PYTHON: DASK_PYTHON };
    const r = await runCli(['run', 'examples/seed-benchmark.json', '--dask', address, '--dask-wait', '2', '--db', db, '--json', '--param', 'N=400', '--param', 'chunks=100'], e, 120_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`waiting for workers on ${address}`);
    const out = JSON.parse(r.stdout) as { status: string; error: string; digest: string | null; storeId: number };
    expect(out.status).toBe('failed');
    expect(out.error).toContain(`no Dask worker on ${address} for 2 s`);
    // A failed run has no result to digest: none in the output, none stored.
    expect(out.digest).toBeNull();
    const show = JSON.parse((await runCli(['show', String(out.storeId), '--db', db, '--json'], e)).stdout) as { digest: string | null };
    expect(show.digest).toBeNull();
    const replay = await runCli(['replay', String(out.storeId), '--dask', address, '--dask-wait', '1', '--db', db], e, 120_000);
    expect(replay.code).toBe(1);
    expect(replay.stdout).toMatch(new RegExp(`^replay of run ${out.storeId} as run \\d+: failed: .*no Dask worker on ${address.replace(/\./g, '\\.')} for 1 s.*; no digest to compare \\(the original's none\\)$`, 'm'));
    expect(replay.stdout).not.toContain('undefined');
  }, 180_000);

  it('--dask-wait that is not a number of seconds is a usage error naming it', async () => {
    const r = await runCli(['run', 'examples/seed-benchmark.json', '--dask', address, '--dask-wait', 'soon', '--no-store'], { GPUFLOW_PYTHON: DASK_PYTHON });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--dask-wait must be a number of seconds in (0, 86400], got 'soon'");
  });

  it.each([
    ['tcp://127.0.0.1:99999', 'port 99999 is out of range (1-65535)'],
    ['tcp://127.0.0.1', 'tcp://127.0.0.1 needs a port'],
    ['ucx://127.0.0.1:13337', 'ucx:// is not supported'],
    ['inproc://127.0.0.1/1/1', 'inproc:// is not supported'],
  ])('--dask %s is a usage error naming --dask (exit 2)', async (addr, why) => {
    const r = await runCli(['run', 'examples/seed-benchmark.json', '--dask', addr, '--no-store'], { GPUFLOW_PYTHON: DASK_PYTHON });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--dask: not a Dask cluster address '${addr}': ${why}`);
  });

  it('the connection test refuses a bad address as such (a 400 from the API), not a RangeError', async () => {
    const e = await svc.testCluster('tcp://127.0.0.1:99999').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(DaskSetupError);
    expect((e as DaskSetupError).code).toBe('bad-target');
  });

  it('local:N beyond the machine\'s cores is a usage error naming the cores (exit 2)', async () => {
    const cores = availableParallelism();
    const r = await runCli(['run', 'examples/seed-benchmark.json', '--dask', `local:${cores + 1}`, '--no-store'], { GPUFLOW_PYTHON: DASK_PYTHON });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--dask: local:${cores + 1} asks for more worker processes than this machine has cores (${cores})`);
  });

  it('the connection test probes no other host (403) and answers a closed port without telling why', async () => {
    // 192.0.2.0/24 is TEST-NET-1: refused before any connection, so nothing leaves this machine.
    const far = await svc.testCluster('tcp://192.0.2.7:8786').catch((err: unknown) => err);
    expect(far).toBeInstanceOf(ApiError);
    expect((far as ApiError).status).toBe(403);
    const closed = `tcp://127.0.0.1:${await freePort()}`;
    const e = await svc.testCluster(closed).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(DaskSetupError);
    // Not "connection refused": a filtered port (no answer) gets this same message.
    expect((e as Error).message).toBe(`cannot reach a Dask scheduler at ${closed}`);
  });

  it('the connection test starts no second local cluster (409)', async () => {
    const e = await svc.testCluster('local:1').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(409);
    expect((e as Error).message).toContain('one local cluster at a time');
  });

  it('an op the workers lack is refused before any connection, naming node and op (exit 2)', async () => {
    // Nothing listens on port 1: a connection attempt would end in exit 1, "cannot reach".
    const r = await runCli(['run', 'examples/tuning-random-search.json', '--dask', 'tcp://127.0.0.1:1', '--no-store'], { GPUFLOW_PYTHON: DASK_PYTHON });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--dask: node 'search' \([^)]+\): the tuning trial '[^']+' is not supported on Dask/);
  });

  it('a cluster switch lets the run in flight finish', async () => {
    workers.push(startWorker(address));
    await svc.setDaskTarget(address);
    await until('a worker joined', () => (svc.daskTarget()?.currentWorkers.length ?? 0) > 0);
    const params = { N: 2000, chunks: 100 };
    const started = await svc.runAsync(seed, { params });
    const ran = new Promise<void>((resolve) => {
      const off = svc.subscribe((e) => e.type === 'task' && e.runId === started.runId && (off(), resolve()));
    });
    await ran;
    await svc.setDaskTarget(null);
    const r = await started.done;
    expect(r.status, r.error).toBe('finished');
    expect(digestOf(r)).toBe(await localDigest(params));
  }, 180_000);

  it('a killed scheduler marks the target disconnected with the reason; the next run reconnects', async () => {
    await svc.setDaskTarget(address);
    await until('a worker is listed', () => (svc.daskTarget()?.currentWorkers.length ?? 0) > 0);
    expect(svc.cluster().info?.connected).toBe(true);
    await killed(scheduler);
    await disconnectedThenReconnects();
  }, 180_000);

  it("a user's cancel of a Dask run is recorded as cancelled by the user", async () => {
    const started = await svc.runAsync(seed, { params: { N: 4000, chunks: 100 } });
    await firstTask(svc, started.runId);
    expect(svc.cancel(started.runId)).toBe(true);
    const r = await started.done;
    expect(r.status).toBe('cancelled');
    expect(r.error).toBe('cancelled by the user');
    expect(r.digest).toBeNull();
    expect(svc.store!.getRun(r.storeId!)!).toMatchObject({ status: 'cancelled', error: 'cancelled by the user' });
  }, 180_000);

  it("serve's benchmark with the Dask target adds a Dask row beside the four local configurations, digests compared", async () => {
    const params = { N: 400, chunks: 100 };
    const record = await svc.startBench(seed, { params, repeat: 1, warmup: 0 }).done;
    const rows = benchRows(record);
    expect(rows.map((r) => r.name)).toEqual([...record.configs.slice(0, 4).map((c) => c.name), 'Dask cluster']);
    expect(rows[4]).toMatchObject({ name: 'Dask cluster', available: true });
    expect(rows[4]!.workers).toBeGreaterThan(0);
    const local = await localDigest(params);
    expect(record.configs[4]!.digest).toBe(local);
    expect(record.configs.find((c) => c.name === '1 CPU core')!.digest).toBe(local);
    expect(record.digestsAgree).toBe(true);
  }, 240_000);

  it('the scheduler killed mid-run: the run fails naming the lost scheduler (a bounded stored error), the target reads disconnected, the next run reconnects', async () => {
    await until('a worker is listed', () => (svc.daskTarget()?.currentWorkers.length ?? 0) > 0);
    const started = await svc.runAsync(seed, { params: { N: 8000, chunks: 100 } });
    await firstTask(svc, started.runId);
    await killed(scheduler);
    const r = await started.done;
    expect(r.status).toBe('failed');
    expect(r.error).toContain(`lost the scheduler at ${address} mid-run`);
    expect(r.error).not.toMatch(/CancelledError/);
    expect(r.digest).toBeNull();
    const stored = svc.store!.getRun(r.storeId!)!;
    expect(stored.status).toBe('failed');
    expect(stored.error!.length).toBeLessThanOrEqual(1000);
    await disconnectedThenReconnects();
  }, 240_000);

  it('serve runs one bridge and one local cluster at a time: switching to another local cluster ends the first one\'s processes', async () => {
    await svc.setDaskTarget('local:1');
    await until('one bridge', () => bridges().length === 1);
    const [first] = bridges();
    const firstTree = tree(first!);
    // The bridge, its LocalCluster's worker process (and its helpers).
    expect(firstTree.length).toBeGreaterThan(1);
    await svc.setDaskTarget('local:1');
    expect(bridges()).toHaveLength(1);
    expect(bridges()[0]).not.toBe(first);
    expect(firstTree.filter(alive)).toEqual([]);
    await svc.setDaskTarget(null);
    await until('no bridge left', () => bridges().length === 0);
  }, 180_000);
});
