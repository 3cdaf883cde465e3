// compiledAs (main/engine/compile/compile.ts): a graph compiled with some options stands for the
// compile with others (a Dask cluster's; a search's GPU workers planned at several per GPU) when
// they leave the graph as it is. The oracle is the compile with those options itself: the same
// tasks, or the same refusal.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compiledAs, compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';

const seed = JSON.parse(readFileSync(new URL('../../../examples/seed-benchmark.json', import.meta.url), 'utf8'));
const wf = validateWorkflow(seed, { N: 2000, chunks: 100 });
const bare = compileWorkflow(wf);
const largest = Math.max(...[...bare.tasks.values()].map((t) => t.workBytes));

describe('compiledAs', () => {
  it('is the bare graph when the bound on task bytes holds: the same tasks as the compile with it', () => {
    const withBound = compileWorkflow(wf, { maxTaskBytes: largest });
    const same = compiledAs(bare, { maxTaskBytes: largest });
    expect(same).toBe(bare);
    expect([...same!.tasks.keys()]).toEqual([...withBound.tasks.keys()]);
    expect(compiledAs(bare, {})).toBe(bare);
    expect(compiledAs(bare, { gpuShare: { gpus: 0, taskElements: 2 ** 20 } })).toBe(bare);
  });

  it('refuses a task over the bound as the compile does, naming the node', () => {
    let expected: unknown;
    try {
      compileWorkflow(wf, { maxTaskBytes: largest - 1 });
    } catch (e) {
      expected = e;
    }
    expect(expected).toBeInstanceOf(Error);
    expect(() => compiledAs(bare, { maxTaskBytes: largest - 1 })).toThrow((expected as Error).message);
  });

  it('is null when the cluster coarsens for its GPUs (the graph changes: compile again)', () => {
    expect(compiledAs(bare, { gpuShare: { gpus: 2, taskElements: 2 ** 20 } })).toBeNull();
    // The oracle: the coarsened compile's tasks are not the bare graph's.
    expect([...compileWorkflow(wf, { gpuShare: { gpus: 2, taskElements: 2 ** 20 } }).tasks.keys()]).not.toEqual([...bare.tasks.keys()]);
    // Nor is a graph compiled for GPU workers taken for none or for other GPUs.
    const forTwo = compileWorkflow(wf, { arrayResource: 'gpu', gpuShare: { gpus: 2, taskElements: 2 ** 20 } });
    expect(compiledAs(forTwo, {})).toBeNull();
    expect(compiledAs(forTwo, { arrayResource: 'gpu', gpuShare: { gpus: 8, taskElements: 2 ** 20 } })).toBeNull();
    expect(compiledAs(forTwo, { arrayResource: 'gpu', gpuShare: { gpus: 2, taskElements: 2 ** 20 } })).toBe(forTwo);
  });
});

describe('compiledAs for a search planned at several GPU workers per GPU', () => {
  const search = validateWorkflow(JSON.parse(readFileSync(new URL('../../fixtures/workflows/search-wide-small.json', import.meta.url), 'utf8')));
  // What Engine.precompile tells the compiler of two cuda GPUs of 80 GB at one worker per GPU,
  // then at four (main/cluster/plan.ts divides a GPU's memory among its workers).
  const gib = 2 ** 30;
  const onePerGpu = { maxTaskBytes: 80 * gib, device: { gpus: 2, bytes: 80 * gib }, arrayResource: 'gpu' as const, gpuShare: { gpus: 2, taskElements: 2 ** 28 } };
  const fourPerGpu = { maxTaskBytes: 20 * gib, device: { gpus: 8, bytes: 20 * gib }, arrayResource: 'gpu' as const, gpuShare: { gpus: 8, taskElements: 2 ** 28 } };
  // Watched, as Engine.precompile compiles a search for `gpuflow run` (CompileOptions.watchWorkers).
  const early = compileWorkflow(search, { ...onePerGpu, watchWorkers: true });

  it('is the compile for one per GPU: its trials read nothing of the workers, the graph equals a fresh compile for four', () => {
    const fresh = compileWorkflow(search, fourPerGpu);
    expect(compiledAs(early, fourPerGpu)).toBe(early);
    expect([...early.tasks.keys()]).toEqual([...fresh.tasks.keys()]);
    expect([...early.tasks.values()]).toEqual([...fresh.tasks.values()]);
    expect(early.outputs).toEqual(fresh.outputs);
    // And a graph with no options at all (the trials' resource is their own).
    expect([...compileWorkflow(search).tasks.values()]).toEqual([...fresh.tasks.values()]);
  });

  it('refuses a trial over a smaller bound with the fresh compile’s message', () => {
    const biggest = Math.max(...[...early.tasks.values()].map((t) => t.workBytes));
    const small = { ...fourPerGpu, maxTaskBytes: biggest - 1 };
    expect(() => compileWorkflow(search, small)).toThrow();
    let expected: unknown;
    try {
      compileWorkflow(search, small);
    } catch (e) {
      expected = e;
    }
    expect(() => compiledAs(early, small)).toThrow((expected as Error).message);
  });

  it('is null for a graph it did not compile, and for one compiled unwatched (counted as having read the workers)', () => {
    expect(compiledAs({ ...early }, fourPerGpu)).toBeNull();
    const unwatched = compileWorkflow(search, onePerGpu);
    expect(compiledAs(unwatched, fourPerGpu)).toBeNull();
    expect(compiledAs(unwatched, onePerGpu)).toBe(unwatched);
  });

  it('notes the reads of an array reduction when watched: not taken for other GPUs', () => {
    const watched = compileWorkflow(wf, { ...onePerGpu, watchWorkers: true });
    expect(compiledAs(watched, fourPerGpu)).toBeNull();
    expect(compiledAs(watched, onePerGpu)).toBe(watched);
  });
});
