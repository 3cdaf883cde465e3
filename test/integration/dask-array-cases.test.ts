/**
 * The dask.array cases (test/fixtures/arrays/dask, see test/unit/engine/dask-array-cases.test.ts)
 * on real worker processes: one case per op as one workflow on 1 CPU worker + 3 virtual GPU workers,
 * so blocks, partials, scan carries and gathers travel between workers, each output compared with
 * NumPy's. native-cpu first when the addon is built (js for what it cannot run), else js.
 */
import { describe, expect, it } from 'vitest';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';
import { loadNative } from '../../native/index';
import { checkOutput, daskCases, valuesOf } from '../helpers/dask-array-cases';

/**
 * One case per op (the first of each, by its last node's op; the unit test runs them all), each
 * under a prefix of its own, in one document: ~1 000 tasks, so the run stays short on 2 cores.
 */
function combined() {
  const seen = new Set<string>();
  const cases = daskCases().filter((c) => {
    const op = c.doc.nodes[c.doc.nodes.length - 1].op;
    const fresh = !seen.has(op);
    seen.add(op);
    return fresh;
  });
  const nodes: unknown[] = [];
  const edges: unknown[] = [];
  const outputs: Array<{ name: string; file: string; tol: number; label: string }> = [];
  cases.forEach((c, i) => {
    const p = `c${i}_`;
    for (const n of c.doc.nodes) nodes.push({ ...n, id: p + n.id });
    for (const e of c.doc.edges) edges.push({ ...e, source: p + e.source, target: p + e.target });
    for (const [name, file] of Object.entries(c.expected)) outputs.push({ name: p + name, file, tol: c.tol, label: `${c.name} -> ${name}` });
  });
  return { doc: { format: 'gpuflow.workflow/1', nodes, edges }, outputs };
}

describe('dask.array cases on 1 CPU + 3 virtual GPU workers', () => {
  it('gives NumPy\'s answers with the work spread over the workers', async () => {
    const { doc, outputs } = combined();
    const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
    const backends = 'unavailable' in loadNative() ? ['js' as const] : ['native-cpu' as const, 'js' as const];
    const engine = new Engine(d, { launcher: forkLauncher(), cpuWorkers: 1, virtualGpus: 3, backends, threadsPerCpuWorker: 1 });
    await engine.start();
    try {
      const r = await engine.run(validateWorkflow(doc)).result;
      expect(r.status, r.error).toBe('finished');
      expect(r.stats.workers.filter((w) => w.tasks > 0).length).toBeGreaterThan(1);
      for (const o of outputs) checkOutput(valuesOf(r.results[o.name]), o.file, o.tol, o.label);
    } finally {
      await engine.shutdown();
    }
  }, 120_000);
});
