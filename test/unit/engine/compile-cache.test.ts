// The compiled-graph cache (main/engine/compile/compile-cache.ts): a workflow compiled again for
// the same pool gets the graph a fresh compile makes (the oracle: compileWorkflow called anew,
// its task keys, dependencies and content digests), and a changed workflow, param or pool shape
// misses; a workflow naming files is never kept.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CompileCache, type GraphOptions } from '../../../main/engine/compile/compile-cache';
import { compileWorkflow, type Compiled } from '../../../main/engine/compile/compile';
import { taskDigests } from '../../../main/engine/cache/task-digests';
import { validateWorkflow } from '../../../main/engine/validate';

const seed = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8')) as { params: Record<string, unknown> };
const csv = JSON.parse(readFileSync('examples/csv-stations.json', 'utf8')) as unknown;
const onePool: GraphOptions = { maxTaskBytes: 1 << 30, gpuShare: { gpus: 1, taskElements: 1 << 20 } };

/** The graph as a run sees it: every task's key, deps and content digest, and the outputs. */
function shape(c: Compiled): unknown {
  const digests = taskDigests(c.tasks);
  return { tasks: [...c.tasks.values()].map((t) => [t.key, t.deps, digests.get(t.key)]), outputs: c.outputs };
}

/** Compiles through the cache as Engine.compileAsync does. */
function cached(cache: CompileCache, wf: ReturnType<typeof validateWorkflow>, opts: GraphOptions): { compiled: Compiled; hit: boolean } {
  const key = cache.key(wf, opts);
  const kept = cache.get(key);
  if (kept) return { compiled: kept, hit: true };
  const compiled = compileWorkflow(wf, opts);
  cache.set(key, compiled);
  return { compiled, hit: false };
}

describe('the compiled-graph cache', () => {
  it('gives a repeated workflow the graph a fresh compile makes', () => {
    const cache = new CompileCache();
    const first = cached(cache, validateWorkflow(seed, { N: 3000, chunks: 500 }), onePool);
    expect(first.hit).toBe(false);
    // The same document with its keys in another order and the same params: the same entry.
    const reordered = { ...Object.fromEntries(Object.entries(seed).reverse()) };
    const again = cached(cache, validateWorkflow(reordered, { chunks: 500, N: 3000 }), { gpuShare: { taskElements: 1 << 20, gpus: 1 }, maxTaskBytes: 1 << 30 });
    expect(again.hit).toBe(true);
    expect(again.compiled).toBe(first.compiled);
    const fresh = compileWorkflow(validateWorkflow(seed, { N: 3000, chunks: 500 }), onePool);
    expect(fresh).not.toBe(again.compiled);
    expect(again.compiled.tasks.size).toBe(fresh.tasks.size);
    expect(shape(again.compiled)).toEqual(shape(fresh));
  });

  it('misses when the workflow, a param or the pool shape changes', () => {
    const cache = new CompileCache();
    const base = cached(cache, validateWorkflow(seed, { N: 3000, chunks: 500 }), onePool).compiled;
    const n = cached(cache, validateWorkflow(seed, { N: 4000, chunks: 500 }), onePool);
    expect(n.hit).toBe(false);
    expect(n.compiled.tasks.size).not.toBe(base.tasks.size);
    const edited = { ...seed, params: { ...seed.params, seed: 7 } };
    const reseeded = cached(cache, validateWorkflow(edited, { N: 3000, chunks: 500 }), onePool);
    expect(reseeded.hit).toBe(false);
    expect(shape(reseeded.compiled)).not.toEqual(shape(base));
    // Four GPU workers instead of one, cuda ones: the reduction coarsens otherwise.
    const fourCuda: GraphOptions = { ...onePool, arrayResource: 'gpu', gpuShare: { gpus: 4, taskElements: 1 << 20 } };
    const pool = cached(cache, validateWorkflow(seed, { N: 3000, chunks: 500 }), fourCuda);
    expect(pool.hit).toBe(false);
    expect(shape(pool.compiled)).toEqual(shape(compileWorkflow(validateWorkflow(seed, { N: 3000, chunks: 500 }), fourCuda)));
    expect(shape(pool.compiled)).not.toEqual(shape(base));
    // A smaller worker memory limit is another entry too.
    expect(cached(cache, validateWorkflow(seed, { N: 3000, chunks: 500 }), { ...onePool, maxTaskBytes: 1 << 24 }).hit).toBe(false);
    // The first is still there.
    expect(cached(cache, validateWorkflow(seed, { N: 3000, chunks: 500 }), onePool).compiled).toBe(base);
  });

  it('never keeps a workflow that names files (a source file may change between runs)', () => {
    const cache = new CompileCache();
    const wf = validateWorkflow(csv);
    expect(cache.key(wf, onePool)).toBeNull();
    expect(cached(cache, wf, onePool).hit).toBe(false);
    expect(cached(cache, wf, onePool).hit).toBe(false);
    expect(cache.size).toBe(0);
  });

  it('keeps at most its entries and tasks, dropping the least recently used', () => {
    const wf = (n: number) => validateWorkflow(seed, { N: n, chunks: 500 });
    const cache = new CompileCache(2, 1_000_000);
    const a = cached(cache, wf(1000), onePool).compiled;
    cached(cache, wf(1500), onePool);
    expect(cached(cache, wf(1000), onePool).compiled).toBe(a); // a used last: 1500 goes next
    cached(cache, wf(2000), onePool);
    expect(cache.size).toBe(2);
    expect(cached(cache, wf(1500), onePool).hit).toBe(false);
    // A task budget smaller than one graph keeps none of it.
    const small = new CompileCache(8, 3);
    cached(small, wf(3000), onePool);
    expect(small.size).toBe(0);
  });
});
