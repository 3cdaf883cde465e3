/**
 * A GPU worker's whole JavaScript path without a GPU: one worker of kind gpu (16 kernel calls in
 * flight, 32 tasks placed, device-resident store, batches that linger while kernels are in
 * flight, one message back a task) whose CUDA calls the CPU kernels answer
 * (GPUFLOW_BENCH_FAKE_CUDA, native/fake-cuda.ts). Its answers must be those of a CPU worker
 * running the same native-cpu kernels on one thread (same chunk partials, same combine tree: the
 * same digest; coarsening for GPUs off, GPUFLOW_COARSEN=0), and close to the js reference's. Skipped where the addon is not built.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../common/results';
import type { Discovery } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { digestOf } from '../../main/api/run-record';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { nativeInfo } from '../../native/index';

const native = nativeInfo().available;
const cpu = { cores: cpus().length, model: 'test', memoryTotalBytes: 2 ** 33, memoryFreeBytes: 2 ** 32 };
const fakeGpu: Discovery = {
  gpus: [{ index: 0, uuid: 'GPU-fake-test', name: 'fake GPU', memoryTotalMiB: 1024, memoryUsedMiB: 0, utilizationPct: 0, pciBusId: '', driverVersion: '' }],
  cpu,
};
const engines: Engine[] = [];
afterAll(async () => {
  await Promise.all(engines.map((e) => e.shutdown()));
});

async function runOn(discovery: Discovery, backends: Array<'cuda' | 'native-cpu' | 'js'>, env: Record<string, string>, params: Record<string, number | string>, file: string): Promise<RunResult> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const engine = new Engine(discovery, { launcher: forkLauncher(), useGpus: discovery.gpus.length > 0, cpuWorkers: discovery.gpus.length > 0 ? 0 : 1, threadsPerCpuWorker: 1, virtualGpus: 0, backends });
  engines.push(engine);
  // The environment stays until the graph is compiled (GPUFLOW_COARSEN is read there).
  try {
    await engine.start();
    const wf = validateWorkflow(JSON.parse(readFileSync(file, 'utf8')), params);
    const run = engine.run(wf);
    process.env = saved;
    const r = await run.result;
    expect(r.status, r.error).toBe('finished');
    return r;
  } finally {
    process.env = saved;
  }
}

describe.skipIf(!native)('a GPU worker path on fake CUDA', () => {
  for (const [file, dtype] of [
    ['examples/seed-benchmark.json', 'float64'],
    ['bench/engine-gpu/seed-full.json', 'float32'],
  ] as const) {
    it(`${file} ${dtype}: the digest of a native-cpu worker, every chunk on 'cuda'`, async () => {
      const params = { N: 400, chunks: 20, dtype };
      // The chunks as asked (no coarsening for the GPU, compile/coarsen.ts): 400 tasks through the path.
      const gpu = await runOn(fakeGpu, ['cuda', 'js'], { GPUFLOW_BENCH_FAKE_CUDA: '1', GPUFLOW_COARSEN: '0' }, params, file);
      const cpuRun = await runOn({ gpus: [], cpu }, ['native-cpu', 'js'], {}, params, file);
      const js = await runOn({ gpus: [], cpu }, ['js'], {}, params, file);
      expect(gpu.stats.workers.map((w) => [w.id, w.backends.cuda])).toEqual([['gpu0', 400]]);
      expect(gpu.stats.device?.tasks).toBe(400);
      expect(digestOf(gpu)).toBe(digestOf(cpuRun));
      const value = (r: RunResult) => {
        const v = r.results.total;
        if (!('value' in v) || typeof v.value !== 'number') throw new Error(`total is not a number: ${JSON.stringify(v)}`);
        return v.value;
      };
      expect(Math.abs(value(gpu) - value(js)) / Math.abs(value(js))).toBeLessThan(dtype === 'float32' ? 1e-5 : 1e-12);
    }, 120_000);
  }
});
