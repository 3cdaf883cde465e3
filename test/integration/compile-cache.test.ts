// A warm engine given the same workflow again (a repeated `gpuflow run` handed to serve) takes the
// graph it compiled before (main/engine/compile/compile-cache.ts), and the run on it answers as a
// run on a graph compiled anew (the oracle: Engine.compile, which never keeps a graph). Fails
// on the code before the cache: compileAsync compiled every time, a new graph each call.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runDigest } from '../../main/api/run-record';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';

const seed = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')) as unknown;

describe('compiled graphs kept by a warm engine', () => {
  it('compiles a repeated workflow once; its run gives the digest of a fresh compile', { timeout: 120_000 }, async () => {
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, virtualGpus: 1, backends: ['js'], threadsPerCpuWorker: 1 });
    await engine.start();
    try {
      const params = { N: 2000, chunks: 500 };
      const first = await engine.compileAsync(validateWorkflow(seed, params));
      const again = await engine.compileAsync(validateWorkflow(seed, params));
      expect(again).toBe(first);
      // Another param is another graph.
      const other = await engine.compileAsync(validateWorkflow(seed, { ...params, seed: 3 }));
      expect(other).not.toBe(first);
      const wf = validateWorkflow(seed, params);
      const fresh = engine.compile(wf);
      expect(fresh).not.toBe(first);
      const onKept = await engine.run(wf, undefined, { compiled: again }).result;
      const onFresh = await engine.run(wf, undefined, { compiled: fresh }).result;
      expect(onKept.status).toBe('finished');
      expect(onKept.results).toEqual(onFresh.results);
      expect(await runDigest(onKept)).toBe(await runDigest(onFresh));
      // The kept graph runs again (a third run of it): the same answer.
      const thrice = await engine.run(wf, undefined, { compiled: await engine.compileAsync(wf) }).result;
      expect(await runDigest(thrice)).toBe(await runDigest(onFresh));
    } finally {
      await engine.shutdown();
    }
  });
});
