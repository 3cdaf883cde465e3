import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DaskWorker } from '../../../common/dask-messages';
import { daskCompileOptions } from '../../../main/dask/compile-options';
import { compileWorkflow } from '../../../main/engine/compile/compile';
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
});
