/**
 * main/dask against the FAKE bridge (test/helpers/fake-dask-bridge.ts, js kernels behind the
 * protocol): the TypeScript side's translation (graph out, events and values in, results
 * assembled by the engine's own code) and its failure messages, without Python. The real bridge
 * is exercised by test/integration/dask-*.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../common/events';
import { digestOf, loadTableDigests } from '../../../main/api/run-record';
import { DaskSetupError } from '../../../main/dask/interpreter';
import { parseTarget } from '../../../main/dask/address';
import { DaskTarget } from '../../../main/dask/target';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { EventBus } from '../../../main/engine/event-bus';
import { validateWorkflow } from '../../../main/engine/validate';
import { runLocal } from '../../helpers/local-run';

const root = path.resolve(__dirname, '../../..');
const fakePython = path.join(root, 'test/helpers/fake-python/python');
const example = (f: string) => JSON.parse(readFileSync(path.join(root, 'examples', f), 'utf8')) as unknown;

async function viaFake(doc: unknown, params: Record<string, number>, target: DaskTarget, bus: EventBus) {
  const compiled = compileWorkflow(validateWorkflow(doc, params));
  const run = target.run(compiled, `r-${Math.random().toString(36).slice(2)}`);
  return { compiled, run, result: await run.result };
}

// digestOf reads table results through Apache Arrow, loaded on demand (main/api/run-record.ts).
beforeAll(() => loadTableDigests());

describe('main/dask against a fake bridge', () => {
  const bus = new EventBus();
  const events: EngineEvent[] = [];
  let target: DaskTarget;
  beforeAll(async () => {
    bus.subscribe((e) => events.push(e));
    target = await DaskTarget.connect('local:2', bus, { python: fakePython });
  });
  afterAll(async () => {
    await target?.close();
  });

  it('parses targets and refuses what is not one', () => {
    expect(parseTarget('tcp://10.0.0.1:8786')).toBe('tcp://10.0.0.1:8786');
    expect(parseTarget('sched.example.org:8786')).toBe('tcp://sched.example.org:8786');
    expect(parseTarget('local:3')).toBe('local:3');
    expect(() => parseTarget('local:0')).toThrow(/1 <= N/);
    expect(() => parseTarget('http://x')).toThrow(/not a Dask cluster address 'http:\/\/x'/);
  });

  it('announces the workers as dask-<name> lanes', () => {
    const up = events.filter((e) => e.type === 'worker' && e.state === 'up').map((e) => (e as { worker: string }).worker);
    expect(up).toEqual(['dask-0', 'dask-1']);
  });

  it('runs the seed example to the js reference digest, tasks on both lanes', async () => {
    const doc = example('seed-benchmark.json');
    const params = { N: 400, chunks: 100 };
    const { compiled, run, result } = await viaFake(doc, params, target, bus);
    expect(result.status).toBe('finished');
    const expected = await runLocal(doc, params);
    expect(digestOf(result)).toBe(digestOf({ ...result, results: expected }));
    const tasks = events.filter((e): e is Extract<EngineEvent, { type: 'task' }> => e.type === 'task' && e.runId === run.runId);
    expect(tasks).toHaveLength(compiled.tasks.size);
    expect(new Set(tasks.map((t) => t.worker))).toEqual(new Set(['dask-0', 'dask-1']));
    const last = events.filter((e) => e.type === 'progress' && e.runId === run.runId).at(-1) as Extract<EngineEvent, { type: 'progress' }>;
    expect(last.done).toBe(compiled.tasks.size);
    expect(Object.values(last.byNode).every(([d, n]) => d === n)).toBe(true);
  });

  it('brings a groupby table back as the same Arrow result as the js reference', async () => {
    const doc = example('dataframe-groupby.json');
    const params = { partitions: 3, rows_per_partition: 500 };
    const { result } = await viaFake(doc, params, target, bus);
    expect(result.status).toBe('finished');
    const expected = await runLocal(doc, params);
    expect(result.results.mean_x).toEqual(expected.mean_x);
    expect(digestOf(result)).toBe(digestOf({ ...result, results: expected }));
  });

  it('sends program code for every program of the seed graph', async () => {
    const { wireGraph } = await import('../../../main/dask/graph');
    const g = wireGraph(compileWorkflow(validateWorkflow(example('seed-benchmark.json'), { N: 200, chunks: 100 })));
    const programs = g.tasks.filter((t) => t.spec.kind === 'program');
    expect(programs.length).toBeGreaterThan(0);
    for (const p of programs) {
      const code = new Float64Array(new Uint8Array(Buffer.from(p.spec.code as string, 'base64')).buffer);
      expect(code[0]).toBe(1); // layout version
      expect(code[2]).toBe(2); // ndim of a 100x100 block
    }
  });
});

describe('main/dask failures against a fake bridge', () => {
  it('an unreachable scheduler is named in the error', async () => {
    const err = await DaskTarget.connect('tcp://10.255.0.1:8786', null, { python: fakePython }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaskSetupError);
    expect((err as DaskSetupError).code).toBe('unreachable');
    expect((err as Error).message).toContain('tcp://10.255.0.1:8786');
  });

  it('a bridge of another protocol version is refused, saying both versions', async () => {
    const err = await DaskTarget.connect('local:1', null, { python: fakePython, env: { ...process.env, FAKE_BRIDGE_PROTOCOL: '7' } }).catch((e: unknown) => e);
    expect((err as DaskSetupError).code).toBe('version');
    expect((err as Error).message).toMatch(/protocol 7.*speaks 1/);
  });

  it('a missing interpreter says what to install', async () => {
    const err = await DaskTarget.connect('local:1', null, { python: '/nonexistent/python3' }).catch((e: unknown) => e);
    expect((err as DaskSetupError).code).toBe('no-python');
    expect((err as Error).message).toContain('GPUFLOW_PYTHON');
  });

  it('a bridge crash mid-run fails the run, saying so', async () => {
    const bus = new EventBus();
    const t = await DaskTarget.connect('local:1', bus, { python: fakePython, env: { ...process.env, FAKE_BRIDGE_CRASH: '1' } });
    const r = await t.run(compileWorkflow(validateWorkflow(example('seed-benchmark.json'), { N: 200, chunks: 100 })), 'crash').result;
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/Dask bridge exited \(code 3\) during the run/);
    await t.close();
  });

  it('an unsupported op fails naming the node and the op', async () => {
    const bus = new EventBus();
    const t = await DaskTarget.connect('local:1', bus, { python: fakePython, env: { ...process.env, FAKE_BRIDGE_UNSUPPORTED: 'df' } });
    const r = await t.run(compileWorkflow(validateWorkflow(example('dataframe-groupby.json'), { partitions: 2, rows_per_partition: 100 })), 'u').result;
    expect(r.status).toBe('failed');
    expect(['ts', 'mean_x']).toContain(r.errorNode);
    expect(r.error).toMatch(new RegExp(`^node '${r.errorNode}' \\(.+\\): op '.+' \\(df\\) is not implemented`));
    await t.close();
  });

  it('cancel ends the run as cancelled', async () => {
    const bus = new EventBus();
    const t = await DaskTarget.connect('local:1', bus, { python: fakePython, env: { ...process.env, FAKE_BRIDGE_SLOW_MS: '50' } });
    const run = t.run(compileWorkflow(validateWorkflow(example('seed-benchmark.json'), { N: 800, chunks: 100 })), 'c');
    bus.subscribe((e) => {
      if (e.type === 'task' && e.runId === 'c') run.cancel('test cancel');
    });
    const r = await run.result;
    expect(r.status).toBe('cancelled');
    expect(r.error).toBe('test cancel');
    await t.close();
  });
});
