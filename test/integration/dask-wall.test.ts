/**
 * Where a `gpuflow run --dask local:N`'s process wall goes, and what it leaves behind (issue 28):
 * with GPUFLOW_TRACE_START=1 the CLI and the bridge print each phase (bridge spawn, imports, the
 * cluster and each worker up, the package shipped, the graph submitted, each worker's first
 * task, the result, the cluster closed, exit) in order, and the answer is the local run's digest;
 * no process the CLI started (bridge, scheduler, nannies, workers, their helpers) outlives it,
 * also when the CLI is killed mid-run. serve keeps its local cluster between runs: a second run
 * pays no start (same bridge, same worker processes).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDigest } from '../../main/api/run-record';
import { GpuflowService } from '../../main/api/service';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import type { RunResult } from '../../common/results';
import { DASK_PYTHON, skipDask } from '../helpers/dask-cluster';
import { runLocal } from '../helpers/local-run';
import { runCli } from './cli-helpers';

const PARAMS = { N: 400, chunks: 100 };
const ARGS = ['run', 'examples/seed-benchmark.json', '--no-store', '--json', '--param', `N=${PARAMS.N}`, '--param', `chunks=${PARAMS.chunks}`];

/** label -> epoch ms of the trace lines of `who` ('cli' for the gpuflow process's own, pid<n>). */
function phases(stderr: string, who: 'cli' | 'bridge'): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of stderr.split('\n')) {
    const f = l.split(' ');
    if (f[0] !== 'gpuflow-trace' || f.length !== 5) continue;
    if (who === 'bridge' ? f[1] !== 'bridge' : !f[1]!.startsWith('pid')) continue;
    out.set(f[2]!, Number(f[4]));
  }
  return out;
}

/** Pids of live processes whose environment carries `mark` (everything a process started inherits it). */
function marked(mark: string): number[] {
  const found: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const env = readFileSync(`/proc/${d}/environ`, 'latin1');
      // The fields after the command name: state, ppid, pgrp, session, tty, tpgid, flags, ...
      const stat = readFileSync(`/proc/${d}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 1).trim().split(' ');
      // A zombie has exited: only its parent's wait is missing. An exiting process (the kernel's
      // PF_EXITING flag, 0x4) was killed and runs no more code: its teardown (a GPU worker's CUDA
      // context) is the kernel's, which the bridge does not wait for (fast_exit.py).
      const exiting = (Number(fields[6]) & 0x4) !== 0;
      if (env.includes(mark) && fields[0] !== 'Z' && !exiting) found.push(Number(d));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

async function goneWithin(mark: string, ms: number): Promise<number[]> {
  const end = Date.now() + ms;
  let left = marked(mark);
  while (left.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    left = marked(mark);
  }
  return left;
}

describe.skipIf(skipDask)('gpuflow run --dask: phases and clean exit', () => {
  it('prints every phase in order, gives the local digest, and leaves no process behind', async () => {
    const mark = `GPUFLOW_TEST_MARK=wall-${process.pid}-${Date.now()}`;
    const [k, v] = mark.split('=') as [string, string];
    // Dask's worker directories go under TMPDIR (dask-worker-space/worker-*).
    const tmp = mkdtempSync(path.join(tmpdir(), 'gpuflow-wall-'));
    const r = await runCli([...ARGS, '--dask', 'local:2'], { GPUFLOW_PYTHON: DASK_PYTHON, GPUFLOW_TRACE_START: '1', TMPDIR: tmp, [k]: v }, 240_000);
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const out = JSON.parse(r.stdout) as RunResult & { digest: string };
    expect(out.digest).toBe(await runDigest({ results: await runLocal(JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')), PARAMS) } as RunResult));

    const cli = phases(r.stderr, 'cli');
    const bridge = phases(r.stderr, 'bridge');
    const cliOrder = ['cli', 'dask-bridge-spawn', 'dask-bridge-ready', 'dask-connected', 'dask-compiled', 'dask-submit', 'dask-result', 'dask-done', 'dask-closed', 'exit'];
    const bridgeOrder = ['bridge-imported', 'capi-checked', 'ready', 'connect-received', 'client-connected', 'versions-checked', 'workers-probed', 'package-shipped', 'events-installed', 'connected', 'submit-received', 'graph-submitted', 'outputs-ready', 'result-sent', 'done-sent', 'shutdown-received', 'exit'];
    const at = (m: Map<string, number>, label: string) => {
      const t = m.get(label);
      if (t === undefined) throw new Error(`no trace phase '${label}' in:\n${r.stderr}`);
      return t;
    };
    for (const [m, order] of [[cli, cliOrder], [bridge, bridgeOrder]] as const) {
      const times = order.map((l) => at(m, l));
      expect(times, order.join(' < ')).toEqual([...times].sort((a, b) => a - b));
    }
    // The bridge and its cluster start at the CLI's first lines (main/dask/early.ts): before the
    // workflow is read, and the cluster the bridge began (prestart.py) is the one the run used.
    expect(at(cli, 'dask-bridge-spawn')).toBeLessThan(at(cli, 'workflow-read'));
    expect(at(bridge, 'prestart-taken')).toBeGreaterThanOrEqual(at(bridge, 'connect-received'));
    expect(r.stderr.split('\n').filter((l) => l.startsWith('gpuflow-trace bridge cluster-started ')).length).toBe(1);
    // Each worker warmed up (python/gpuflow_dask/warm.py) as it started.
    expect(r.stderr).toMatch(/^gpuflow-trace worker 0-warm-done /m);
    expect(r.stderr).toMatch(/^gpuflow-trace worker 1-warm-done /m);
    // Across the two processes (one clock: both print epoch ms).
    expect(at(bridge, 'bridge-imported')).toBeGreaterThan(at(cli, 'dask-bridge-spawn'));
    expect(at(cli, 'dask-bridge-ready')).toBeGreaterThanOrEqual(at(bridge, 'ready'));
    expect(at(cli, 'dask-connected')).toBeGreaterThanOrEqual(at(bridge, 'connected'));
    expect(at(bridge, 'submit-received')).toBeGreaterThanOrEqual(at(cli, 'dask-submit'));
    expect(at(cli, 'dask-closed')).toBeGreaterThanOrEqual(at(bridge, 'exit'));
    // Each worker: its process, its registration with the scheduler, its first task (after the graph went in).
    for (const w of ['0', '1']) {
      const seq = [`worker-${w}-process`, `worker-${w}-registered`, `first-task-start-${w}`, `first-task-done-${w}`].map((l) => at(bridge, l));
      expect(seq).toEqual([...seq].sort((a, b) => a - b));
      expect(at(bridge, `worker-${w}-registered`)).toBeLessThanOrEqual(at(bridge, 'connected'));
      expect(at(bridge, `first-task-start-${w}`)).toBeGreaterThanOrEqual(at(bridge, 'submit-received'));
    }
    // The cluster was killed, not closed (python/gpuflow_dask/fast_exit.py): nothing of it
    // is left running, and neither are the workers' directories.
    expect(at(bridge, 'cluster-killed')).toBeLessThanOrEqual(at(bridge, 'exit'));
    expect(marked(mark)).toEqual([]);
    expect(readdirSync(path.join(tmp, 'dask-worker-space')).filter((f) => f.startsWith('worker-'))).toEqual([]);
    rmSync(tmp, { recursive: true, force: true });
  }, 300_000);

  it('kills the bridge and cluster it started early when the workflow is refused', async () => {
    const mark = `GPUFLOW_TEST_MARK=refused-${process.pid}-${Date.now()}`;
    const [k, v] = mark.split('=') as [string, string];
    const r = await runCli(['run', 'examples/tuning-random-search.json', '--no-store', '--dask', 'local:2'], { GPUFLOW_PYTHON: DASK_PYTHON, GPUFLOW_TRACE_START: '1', [k]: v }, 120_000);
    expect(r.code, r.stderr.slice(-2000)).toBe(2);
    expect(r.stderr).toMatch(/--dask: node '[^']+' \(.+\).*not supported on Dask|--dask: .*tuning/);
    expect(r.stderr).toMatch(/gpuflow-trace pid\d+ dask-bridge-spawn /);
    expect(marked(mark)).toEqual([]);
  }, 180_000);

  it('leaves no process behind when the CLI is killed mid-run', async () => {
    const mark = `GPUFLOW_TEST_MARK=killed-${process.pid}-${Date.now()}`;
    const [k, v] = mark.split('=') as [string, string];
    const child = spawn(process.execPath, ['bin/gpuflow.mjs', ...ARGS, '--param', 'N=20000', '--param', 'chunks=500', '--dask', 'local:2'], {
      env: { ...process.env, GPUFLOW_PYTHON: DASK_PYTHON, GPUFLOW_TRACE_START: '1', [k]: v },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    // Killed once the graph is on the cluster (its workers busy with it).
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (/gpuflow-trace bridge graph-submitted /.test(stderr)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the CLI exited (${code}) before the graph went in:\n${stderr}`)));
    });
    expect(marked(mark).length).toBeGreaterThanOrEqual(3); // the CLI, the bridge, two workers (and helpers)
    child.kill('SIGKILL');
    // The bridge reads EOF on stdin and closes its cluster (gracefully: nobody is told to hurry).
    expect(await goneWithin(mark, 60_000)).toEqual([]);
  }, 300_000);
});

describe.skipIf(skipDask)('serve with a local Dask cluster', () => {
  it('keeps the cluster warm between runs: the second run uses the same worker processes', async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    // serve's service with no local workers: every run goes to the Dask target.
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 0, useGpus: false, backends: ['js'] });
    await engine.start();
    const svc = new GpuflowService(engine, null, { launcher: forkLauncher(), virtualGpus: 0, backends: ['js'] });
    try {
      await svc.setDaskTarget('local:2');
      const target = svc.daskTarget()!;
      // As the scheduler lists them now (a restarted worker has a new address, probed anew).
      const pids = async () => (await target.refreshWorkers()).map((w) => w.pid).sort();
      const before = await pids();
      expect(before.every((p) => typeof p === 'number')).toBe(true);
      const doc = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')) as unknown;
      const want = await runDigest({ results: await runLocal(doc, PARAMS) } as RunResult);
      for (let i = 0; i < 2; i++) {
        const r = await (await svc.runAsync(doc, { params: PARAMS })).done;
        expect(r.status, r.error).toBe('finished');
        expect(await runDigest(r)).toBe(want);
        expect(svc.daskTarget()).toBe(target);
        expect(await pids()).toEqual(before);
      }
    } finally {
      await svc.close();
    }
  }, 240_000);
});
