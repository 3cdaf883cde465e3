/**
 * gpuflow on a real Dask cluster (distributed 2022.12 from /usr/bin/python3, the repository's
 * python/gpuflow_dask behind the bridge): the examples through `gpuflow run --dask`, each with
 * the digest of the same workflow run by the local kernels (test/helpers/local-run.ts, the js
 * reference); the stored events on both Dask workers; a Dask worker killed mid-run; an
 * unreachable scheduler. One LocalCluster is shared by the tests that do not start their own.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOf, runDigest } from '../../main/api/run-record';
import { DaskTarget } from '../../main/dask/target';
import { compileWorkflow } from '../../main/engine/compile/compile';
import { EventBus } from '../../main/engine/event-bus';
import { validateWorkflow } from '../../main/engine/validate';
import { openStore } from '../../main/store';
import type { ResultValue, RunResult } from '../../common/results';
import { DASK_PYTHON, skipDask, startLocalCluster, type SharedCluster } from '../helpers/dask-cluster';
import { runLocal } from '../helpers/local-run';
import { runCli, tempDb } from './cli-helpers';

const example = (f: string) => JSON.parse(readFileSync(`examples/${f}`, 'utf8')) as unknown;
const env = { GPUFLOW_PYTHON: DASK_PYTHON };
const localDigest = async (doc: unknown, params: Record<string, number>) => runDigest({ results: await runLocal(doc, params) } as RunResult);
const paramArgs = (p: Record<string, number>) => Object.entries(p).flatMap(([k, v]) => ['--param', `${k}=${v}`]);

interface RunJson {
  status: string;
  error?: string;
  digest: string;
  storeId: number;
  results: Record<string, ResultValue>;
  tasksPerWorker: Record<string, number>;
}

/** A Python script run asynchronously (two at once share the cluster). */
function runPython(args: string[], pyEnv: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(DASK_PYTHON, args, { env: pyEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function daskRun(file: string, params: Record<string, number>, target: string, db = tempDb()): Promise<RunJson & { db: string }> {
  const r = await runCli(['run', `examples/${file}`, '--dask', target, '--json', '--db', db, ...paramArgs(params)], env, 240_000);
  if (r.code !== 0) throw new Error(`gpuflow run --dask ${target} exited ${r.code}: ${r.stderr.slice(-2000)}`);
  return { ...(JSON.parse(r.stdout) as RunJson), db };
}

describe.skipIf(skipDask)('gpuflow run --dask', () => {
  let cluster: SharedCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster(2);
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('runs the seed example on local:2 with the local digest, tasks of both Dask workers stored', async () => {
    const params = { N: 400, chunks: 100 };
    const r = await daskRun('seed-benchmark.json', params, 'local:2');
    expect(r.status).toBe('finished');
    expect(r.digest).toBe(await localDigest(example('seed-benchmark.json'), params));
    const store = openStore(r.db);
    try {
      const events = store.listEvents(r.storeId, { limit: 10_000 });
      const lanes = new Set(events.filter((e) => e.type === 'task').map((e) => e.worker));
      expect(lanes).toEqual(new Set(['dask-0', 'dask-1']));
      const run = store.getRun(r.storeId)!;
      expect(run.target).toMatchObject({ kind: 'dask', target: 'local:2' });
      expect((run.target as { versions: Record<string, string> }).versions.distributed).toMatch(/^\d{4}\./);
    } finally {
      store.close();
    }
    // show prints the cluster (scheduler, versions, workers), history a target column.
    const show = await runCli(['show', String(r.storeId), '--db', r.db], env);
    expect(show.stdout).toMatch(/^target {4}Dask cluster tcp:\/\/127\.0\.0\.1:\d+ \(local:2\); python 3\.[\d.]+, dask \d{4}\.[^,]+, distributed \d{4}\.[^;]+; 2 workers: 0 \(127\.0\.0\.1, 1 thread\), 1 \(127\.0\.0\.1, 1 thread\); from /m);
    const history = await runCli(['history', '--db', r.db], env);
    expect(history.stdout).toMatch(new RegExp(`^\\s*${r.storeId} .* seed benchmark +local:2 +${r.digest.slice(0, 12)}$`, 'm'));
  }, 240_000);

  it('runs the dataframe groupby example with the local digest', async () => {
    const params = { partitions: 4, rows_per_partition: 2000 };
    const r = await daskRun('dataframe-groupby.json', params, cluster.address);
    expect(r.status).toBe('finished');
    expect(r.digest).toBe(await localDigest(example('dataframe-groupby.json'), params));
  }, 240_000);

  it('runs the linear algebra example (matmul + tall-skinny svd) with the local digest', async () => {
    const params = { rows: 2000, cols: 40, rank: 8, block_rows: 500 };
    const r = await daskRun('linalg-svd.json', params, cluster.address);
    expect(r.status).toBe('finished');
    expect(r.digest).toBe(await localDigest(example('linalg-svd.json'), params));
  }, 240_000);

  it('an unreachable scheduler exits 1 naming the address, within 10 s of starting', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const address = `tcp://127.0.0.1:${port}`;
    const r = await runCli(['run', 'examples/seed-benchmark.json', '--dask', address, '--no-store'], env, 120_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot reach the Dask scheduler at ${address}`);
    // The bound is on gpuflow's own work, measured in-process: a loaded CI machine can take
    // longer than 10 s just to start node and tsx.
    const t0 = Date.now();
    const err = await DaskTarget.connect(address, null, { python: DASK_PYTHON }).catch((e: unknown) => e);
    expect((err as Error).message).toContain(address);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('export-dask writes a script that computes the local answer on the cluster', async () => {
    const params = { N: 400, chunks: 100 };
    const script = await runCli(['export-dask', 'examples/seed-benchmark.json', ...paramArgs(params)], env);
    expect(script.code).toBe(0);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'gpuflow-export-')), 'seed.py');
    writeFileSync(file, script.stdout);
    const py = spawnSync(DASK_PYTHON, [file, cluster.address], {
      encoding: 'utf8',
      timeout: 180_000,
      env: { ...process.env, PYTHONPATH: path.resolve('python'), GPUFLOW_CAPI_DIR: path.resolve('native/build') },
    });
    expect(py.status, py.stderr).toBe(0);
    const lines = py.stdout.trim().split('\n').map((l) => JSON.parse(l) as { node: string; kind: string; value: number });
    const total = lines.find((l) => l.node === 'total')!;
    const local = (await runLocal(example('seed-benchmark.json'), params)).total as { value: number };
    expect(total.kind).toBe('scalar');
    // The contract of docs/random.md: equal within 1e-12 relative (compensated sums on both sides).
    expect(Math.abs(total.value - local.value)).toBeLessThanOrEqual(1e-12 * Math.abs(local.value));
  }, 240_000);

  it('two exported scripts of one workflow with other seeds, on one scheduler at once, print their own totals', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-export-'));
    const seeds = [0, 1];
    const files = await Promise.all(
      seeds.map(async (seed) => {
        const script = await runCli(['export-dask', 'examples/seed-benchmark.json', ...paramArgs({ N: 2000, chunks: 100, seed })], env);
        expect(script.code, script.stderr).toBe(0);
        const file = path.join(dir, `seed-${seed}.py`);
        writeFileSync(file, script.stdout);
        return file;
      }),
    );
    const pyEnv = { ...process.env, PYTHONPATH: path.resolve('python'), GPUFLOW_CAPI_DIR: path.resolve('native/build') };
    const outs = await Promise.all(files.map((f) => runPython([f, cluster.address], pyEnv)));
    for (const [i, seed] of seeds.entries()) {
      expect(outs[i]!.code, outs[i]!.stderr).toBe(0);
      const total = outs[i]!.stdout.trim().split('\n').map((l) => JSON.parse(l) as { node: string; value: number }).find((l) => l.node === 'total')!;
      const local = (await runLocal(example('seed-benchmark.json'), { N: 2000, chunks: 100, seed })).total as { value: number };
      expect(Math.abs(total.value - local.value)).toBeLessThanOrEqual(1e-12 * Math.abs(local.value));
    }
  }, 240_000);

  it('bench --dask ADDR from the CLI adds a Dask row whose digest agrees with the local rows', async () => {
    const params = { N: 400, chunks: 100 };
    const r = await runCli(['bench', 'examples/seed-benchmark.json', '--dask', cluster.address, '--repeat', '1', '--warmup', '0', '--json', '--db', tempDb(), ...paramArgs(params)], env, 240_000);
    expect(r.code, r.stderr).toBe(0);
    const record = JSON.parse(r.stdout) as { digestsAgree: boolean; configs: { name: string; available: boolean; digest?: string; workers: number }[] };
    const dask = record.configs.find((c) => c.name === 'Dask cluster')!;
    expect(dask).toMatchObject({ available: true, workers: 2 });
    expect(dask.digest).toBe(await localDigest(example('seed-benchmark.json'), params));
    expect(record.configs.find((c) => c.name === '1 CPU core')!.digest).toBe(dask.digest);
    expect(record.digestsAgree).toBe(true);
  }, 240_000);

  it('bench --dask prints the reasons of a refused workflow, exit 2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-bench-'));
    const file = path.join(dir, 'empty.json');
    writeFileSync(file, JSON.stringify({ version: 1, name: 'empty', nodes: [], edges: [] }));
    const r = await runCli(['bench', file, '--dask', cluster.address, '--db', tempDb()], env, 120_000);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('invalid workflow:\n  format: must be "gpuflow.workflow/1"');
  }, 120_000);

  it('runs the CSV example (read_csv on the workers, filter, groupby) with the local digest', async () => {
    const r = await daskRun('csv-stations.json', {}, cluster.address);
    expect(r.status).toBe('finished');
    expect(r.digest).toBe(await localDigest(example('csv-stations.json'), {}));
  }, 240_000);

  it('a CSV file the workers cannot see fails before any task, naming node, param and worker', async () => {
    // Compiled while the file exists (types are inferred here), removed before the run.
    const csv = path.join(mkdtempSync(path.join(tmpdir(), 'gpuflow-csv-')), 'stations.csv');
    copyFileSync('examples/data/stations.csv', csv);
    const doc = example('csv-stations.json') as { nodes: { id: string; params: Record<string, unknown> }[] };
    doc.nodes[0]!.params.path = csv;
    const graph = compileWorkflow(validateWorkflow(doc, {}));
    unlinkSync(csv);
    const target = await DaskTarget.connect(cluster.address, new EventBus(), { python: DASK_PYTHON, log: () => undefined });
    try {
      const r = await target.run(graph, 'missing-csv').result;
      expect(r.status).toBe('failed');
      expect(r.error).toMatch(new RegExp(`^node 'read' \\(read_csv\\): params\\.path: the Dask worker tcp://127\\.0\\.0\\.1:\\d+ cannot see ${csv.replace(/[.]/g, '\\.')} \\(No such file or directory\\)`));
      expect(r.errorNode).toBe('read');
      expect(Object.keys(r.results)).toEqual([]);
    } finally {
      await target.close();
    }
  }, 240_000);

  it('loads a .npy file on the workers (blocks narrower than the array) with the local digest', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'gpuflow-npy-')), 'x.npy');
    const made = spawnSync(DASK_PYTHON, ['-c', 'import numpy as np, sys; np.save(sys.argv[1], np.random.default_rng(7).normal(size=(40, 6)))', file], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const doc = {
      format: 'gpuflow.workflow/1',
      name: 'npy columns',
      nodes: [
        { id: 'x', op: 'load_npy', params: { path: file, chunks: [16, 4] }, position: { x: 0, y: 0 } },
        { id: 'cols', op: 'reduce', params: { op: 'sum', axis: 0 }, position: { x: 200, y: 0 } },
      ],
      edges: [{ source: 'x', sourcePort: 'out', target: 'cols', targetPort: 'x' }],
    };
    const wf = path.join(path.dirname(file), 'npy.json');
    writeFileSync(wf, JSON.stringify(doc));
    const r = await runCli(['run', wf, '--dask', cluster.address, '--json', '--no-store'], env, 240_000);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as RunJson;
    expect(out.status).toBe('finished');
    expect(out.digest).toBe(await localDigest(doc, {}));
  }, 240_000);

  // Last: it kills one of the shared cluster's workers.
  it('finishes with the same digest when a Dask worker is killed mid-run', async () => {
    const params = { N: 1200, chunks: 200 };
    const bus = new EventBus();
    const target = await DaskTarget.connect(cluster.address, bus, { python: DASK_PYTHON, log: () => undefined });
    try {
      const victim = target.currentWorkers.find((w) => w.name === '1')!;
      expect(victim.pid).toBe(cluster.workers['1']);
      const run = target.run(compileWorkflow(validateWorkflow(example('seed-benchmark.json'), params)), 'kill-run');
      let killed = false;
      bus.subscribe((e) => {
        if (!killed && e.type === 'task' && e.runId === 'kill-run') {
          killed = true;
          process.kill(victim.pid!, 'SIGKILL');
        }
      });
      const r = await run.result;
      expect(killed).toBe(true);
      expect(r.status).toBe('finished');
      expect(digestOf(r)).toBe(await localDigest(example('seed-benchmark.json'), params));
    } finally {
      await target.close();
    }
  }, 240_000);
});
