import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChunkValue } from '../../../common/arrays';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { explain } from '../../../main/engine/compile/explain';
import { validateWorkflow } from '../../../main/engine/validate';
import { PhiloxStream } from '../../../common/philox';
import { runProgram } from '../../../worker/kernels/js/program';
import { combinePartials, finalizePartial } from '../../../worker/kernels/js/reduce';
import type { TaskDef } from '../../../common/tasks';

const seed = JSON.parse(readFileSync('examples/seed-benchmark.json', 'utf8'));

/** Runs a compiled graph in this process, in dependency order, with the js kernels. */
function execute(tasks: Map<string, TaskDef>, key: string, memo = new Map<string, ChunkValue>()): ChunkValue {
  const hit = memo.get(key);
  if (hit) return hit;
  const t = tasks.get(key)!;
  const inputs = t.deps.map((d) => execute(tasks, d, memo));
  let v: ChunkValue;
  if (t.spec.kind === 'program') v = runProgram(t.spec.program, inputs);
  else if (t.spec.kind === 'combine') {
    const p = combinePartials(inputs.map((i) => (i.kind === 'partial' ? i.partial : (() => { throw new Error('not a partial'); })())));
    v = t.spec.finalize ? { kind: 'array', array: finalizePartial(p, t.spec.ddof ?? 0) } : { kind: 'partial', partial: p };
  } else throw new Error(`unexpected ${t.spec.kind}`);
  memo.set(key, v);
  return v;
}

describe('compiler', () => {
  it('fuses the seed workload into one task per chunk plus the reduction tree', () => {
    const c = compileWorkflow(validateWorkflow(seed, { N: 4000, chunks: 1000 }));
    const ex = explain(c);
    // 16 chunks -> 16 fused programs; split_every 8 -> 2 combines -> 1 final combine.
    expect(ex.byNode).toEqual({ total: 19 });
    const programs = [...c.tasks.values()].filter((t) => t.spec.kind === 'program');
    expect(programs).toHaveLength(16);
    expect(programs[0].op).toBe('normal+add+slice+sum');
    expect(ex.criticalPath).toHaveLength(3);
    expect(ex.unfusedTasks).toBeGreaterThan(ex.tasks);
  });

  it('pushes the slice into the generator: a chunk reads only the kept elements', () => {
    const c = compileWorkflow(validateWorkflow(seed, { N: 10, chunks: 5 }));
    const first = [...c.tasks.values()].find((t) => t.key === 'total/sum(0,1)')!;
    if (first.spec.kind !== 'program') throw new Error('expected a program');
    const p = first.spec.program;
    expect(p.shape).toEqual([3, 2]);
    const expr = p.expr;
    if (expr.kind !== 'binary' || expr.a.kind !== 'leaf' || expr.a.leaf.kind !== 'random') throw new Error('expected normal + 1');
    // Block (0, 1) of x covers columns 5..9; ::2 keeps columns 6 and 8, rows 0, 2, 4.
    expect(expr.a.leaf.region).toEqual({ start: [0, 6], step: [2, 2], count: [3, 2] });
  });

  it('computes the same sum as generating every element by hand', () => {
    const N = 30;
    const c = compileWorkflow(validateWorkflow(seed, { N, chunks: 7 }));
    const final = (c.outputs.total as { key: string }).key;
    const got = execute(c.tasks, final);
    const s = new PhiloxStream(0, 'normal', 10, 1, false);
    let want = 0;
    for (let i = 0; i < N; i += 2) for (let j = 0; j < N; j += 2) want += s.at(i * N + j) + 1;
    if (got.kind !== 'array') throw new Error('expected a value');
    expect(got.array.data[0]).toBeCloseTo(want, 9);
  });

  it('gives bit-identical sums for any chunking of the same seed when the graph shape is fixed', () => {
    const sum = (chunks: number) => {
      const c = compileWorkflow(validateWorkflow(seed, { N: 24, chunks }));
      const v = execute(c.tasks, (c.outputs.total as { key: string }).key);
      return v.kind === 'array' ? (v.array.data[0] as number) : NaN;
    };
    // Different chunkings change only the order of additions: agreement to rounding.
    expect(sum(5)).toBeCloseTo(sum(24), 10);
  });

  it('refuses before allocating a task larger than any worker may hold, naming the node', () => {
    expect(() => compileWorkflow(validateWorkflow(seed, { N: 100_000, chunks: 100_000 }), { maxTaskBytes: 2 ** 30 })).toThrow(
      /nodes\[3\] \(node 'total'\): a task needs 18\.6 GiB but the largest worker may hold 1\.0 GiB/,
    );
  });
});
