import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DaskWorker } from '../../../common/dask-messages';
import { daskCompileOptions, daskCompileOptionsBefore } from '../../../main/dask/compile-options';
import { compiledAs, compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { runLocal } from '../../helpers/local-run';

const seed = JSON.parse(readFileSync(path.join(__dirname, '../../../examples/seed-benchmark.json'), 'utf8')) as unknown;
const worker = (i: number, memory_limit: number): DaskWorker => ({ name: `gpu-${i}`, address: `tcp://127.0.0.1:${40000 + i}`, host: '127.0.0.1', pid: 100 + i, nthreads: 1, memory_limit, gpus: [], gpuflow: true });
const four = [worker(0, 64e9), worker(1, 0), worker(2, 32e9), worker(3, 64e9)];
const full = { N: 500000, chunks: 10000, dtype: 'float64' };
const tasks = (target: string, env: NodeJS.ProcessEnv = {}) => compileWorkflow(validateWorkflow(seed, full), daskCompileOptions(target, four, env)).tasks.size;

describe('how a workflow compiles for a Dask target', () => {
  it("coarsens the 2 TB sliced seed for a local-cuda cluster's GPUs as the local engine does for four GPU workers", () => {
    // 84 tasks: what the local engine ran on the four-GPU machine (72 chunk programs of 6 x 7
    // sliced chunks, compile/coarsen.ts's example, and their combines), against the 2 859 of the
    // uncoarsened graph (2 500 programs) that the Dask runs there executed (dask-device-nvidia-h100-x4-6ea9810).
    expect(tasks('local-cuda')).toBe(84);
    expect(tasks('tcp://127.0.0.1:8786')).toBe(2859);
    expect(tasks('local:4')).toBe(2859);
    expect(tasks('local-cuda', { GPUFLOW_COARSEN: '0' })).toBe(2859);
  });

  it('bounds tasks by the smallest known worker memory limit (0 is unknown)', () => {
    expect(daskCompileOptions('tcp://127.0.0.1:8786', four, {}).maxTaskBytes).toBe(32e9);
    expect(daskCompileOptions('local-cuda', [], {})).toEqual({ maxTaskBytes: undefined });
  });

  it('gives the uncoarsened graph its value (reblocking regroups only the partial sums)', async () => {
    const small = { N: 2400, chunks: 100, dtype: 'float64' };
    const coarse = compileWorkflow(validateWorkflow(seed, small), daskCompileOptions('local-cuda', four, {}));
    expect(coarse.tasks.size).toBeLessThan(compileWorkflow(validateWorkflow(seed, small)).tasks.size);
    const a = (await runLocal(seed, small, daskCompileOptions('local-cuda', four, {}))).total;
    const b = (await runLocal(seed, small)).total;
    expect(a.kind).toBe('scalar');
    expect(b.kind).toBe('scalar');
    if (a.kind !== 'scalar' || b.kind !== 'scalar') return;
    expect(Math.abs(Number(a.value) - Number(b.value)) / Math.abs(Number(b.value))).toBeLessThan(1e-12);
  });

  describe('before connecting (gpuflow run --dask: the refusal check, whose graph the run takes)', () => {
    const wf = validateWorkflow(seed, full);

    it("compiles for a local-cuda cluster's GPUs as CUDA_VISIBLE_DEVICES names them: the cluster's own compile, not redone", () => {
      const before = daskCompileOptionsBefore('local-cuda', { CUDA_VISIBLE_DEVICES: '0, 1,2,3' });
      expect(before).toEqual({ gpuShare: daskCompileOptions('local-cuda', four, {}).gpuShare });
      const early = compileWorkflow(wf, before);
      // After connecting: four workers, the bound their memory limits give.
      const connected = daskCompileOptions('local-cuda', four, {});
      const fresh = compileWorkflow(wf, connected);
      expect(compiledAs(early, connected)).toBe(early);
      expect(early.tasks.size).toBe(84);
      expect([...early.tasks.keys()]).toEqual([...fresh.tasks.keys()]);
      expect([...early.tasks.values()]).toEqual([...fresh.tasks.values()]);
      expect(early.outputs).toEqual(fresh.outputs);
    });

    it('compiles again where the cluster turned out otherwise (a worker that did not start)', () => {
      const early = compileWorkflow(wf, daskCompileOptionsBefore('local-cuda', { CUDA_VISIBLE_DEVICES: '0,1,2,3' }));
      expect(compiledAs(early, daskCompileOptions('local-cuda', four.slice(0, 3), {}))).toBeNull();
    });

    it('knows no GPUs where CUDA_VISIBLE_DEVICES is unset, names none, or the target is not local-cuda; nor with GPUFLOW_COARSEN=0', () => {
      expect(daskCompileOptionsBefore('local-cuda', {})).toEqual({});
      expect(daskCompileOptionsBefore('local-cuda', { CUDA_VISIBLE_DEVICES: '' })).toEqual({});
      expect(daskCompileOptionsBefore('local-cuda', { CUDA_VISIBLE_DEVICES: '-1' })).toEqual({});
      expect(daskCompileOptionsBefore('local:4', { CUDA_VISIBLE_DEVICES: '0,1' })).toEqual({});
      expect(daskCompileOptionsBefore(null, { CUDA_VISIBLE_DEVICES: '0,1' })).toEqual({});
      expect(daskCompileOptionsBefore('local-cuda', { CUDA_VISIBLE_DEVICES: '0,1', GPUFLOW_COARSEN: '0' })).toEqual({});
    });

    it('counts the GPUs CUDA_VISIBLE_DEVICES names as the bridge does (the fixture python/tests/test_local_cuda.py reads too)', () => {
      const fixture = JSON.parse(readFileSync(path.join(__dirname, '../../../python/tests/fixtures/cuda-visible-devices.json'), 'utf8')) as { cases: { value: string; gpus: string[] }[] };
      expect(fixture.cases.length).toBeGreaterThan(5);
      for (const c of fixture.cases) expect(daskCompileOptionsBefore('local-cuda', { CUDA_VISIBLE_DEVICES: c.value }).gpuShare?.gpus ?? 0, c.value).toBe(c.gpus.length);
    });
  });
});
