// compiledAs (main/engine/compile/compile.ts): a graph compiled with no options stands for the
// compile with a Dask cluster's options when they leave the graph as it is. The oracle is the
// compile with those options itself: the same tasks, or the same refusal.
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
    const same = compiledAs(wf, bare, { maxTaskBytes: largest });
    expect(same).toBe(bare);
    expect([...same!.tasks.keys()]).toEqual([...withBound.tasks.keys()]);
    expect(compiledAs(wf, bare, {})).toBe(bare);
    expect(compiledAs(wf, bare, { gpuShare: { gpus: 0, taskElements: 2 ** 20 } })).toBe(bare);
  });

  it('refuses a task over the bound as the compile does, naming the node', () => {
    let expected: unknown;
    try {
      compileWorkflow(wf, { maxTaskBytes: largest - 1 });
    } catch (e) {
      expected = e;
    }
    expect(expected).toBeInstanceOf(Error);
    expect(() => compiledAs(wf, bare, { maxTaskBytes: largest - 1 })).toThrow((expected as Error).message);
  });

  it('is null when the cluster coarsens for its GPUs (the graph changes: compile again)', () => {
    expect(compiledAs(wf, bare, { gpuShare: { gpus: 2, taskElements: 2 ** 20 } })).toBeNull();
  });
});
