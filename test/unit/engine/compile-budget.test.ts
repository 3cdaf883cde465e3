/**
 * Compilation cannot take serve down (issue 29 item 5): a graph over MAX_TASKS is refused from
 * shapes and chunks before any block is built; compiles share one budget (one at a time, a short
 * line, the rest refused at once); a compile whose client went away stops at its next slice.
 */
import { describe, expect, it } from 'vitest';
import { CompileBusy, CompileGate } from '../../../main/engine/compile/compile-gate';
import { compileSteps, compileWorkflowAsync } from '../../../main/engine/compile/compile';
import { MAX_TASKS } from '../../../main/engine/compile/limits';
import { runInSlices, WorkAborted } from '../../../main/engine/slices';
import { validateWorkflow } from '../../../main/engine/validate';
import { chain } from '../../helpers/local-run';

const bigReduce = (n: number, c: number) => validateWorkflow(chain(['x', 'random_normal', { shape: [n, n], chunks: [c, c] }], ['total', 'reduce', { op: 'sum' }]));

describe('task count estimated before building', () => {
  it('1400² in one-element chunks + reduce (2 240 000 tasks) is refused before a single block is built', () => {
    const steps = compileSteps(bigReduce(1400, 1));
    let yields = 0;
    // Building blocks yields every few (slices.ts); a refusal from the estimate comes first.
    expect(() => {
      while (!steps.next().done) yields++;
    }).toThrow(`nodes[1] (node 'total'): the workflow needs more than ${MAX_TASKS} tasks (this node alone at least 2240000): use larger chunks, blocks or fewer files`);
    expect(yields).toBe(0);
  });

  it('a timeseries of 1e9 partitions is refused before a partition is built (one task each)', () => {
    const steps = compileSteps(validateWorkflow(chain(['ts', 'timeseries', { partitions: 1e9, rows_per_partition: 10 }, 'df'])));
    let yields = 0;
    expect(() => {
      while (!steps.next().done) yields++;
    }).toThrow(`nodes[0] (node 'ts'): the workflow needs more than ${MAX_TASKS} tasks (this node alone at least 1000000000)`);
    expect(yields).toBe(0);
  });

  it('the estimate is a lower bound: a reduce just under the limit is not refused by it', () => {
    // 1000 x 1000 blocks: 1 000 000 chunk tasks + 142 858 combines (the figure the issue quotes).
    const steps = compileSteps(bigReduce(1_000_000, 1000));
    expect(steps.next().done).toBe(false); // it starts building
    steps.return(undefined as never);
  });
});

describe('compile gate', () => {
  const deferred = () => {
    let resolve!: (v: string) => void;
    const p = new Promise<string>((r) => (resolve = r));
    return { p, resolve };
  };

  it('runs one compile at a time, the next when it ends, in order; refuses past the line', async () => {
    const gate = new CompileGate(1, 2);
    const log: string[] = [];
    const a = deferred();
    const b = deferred();
    const pa = gate.run(() => (log.push('a'), a.p));
    const pb = gate.run(() => (log.push('b'), b.p));
    const pc = gate.run(async () => (log.push('c'), 'c'));
    await expect(gate.run(async () => 'd')).rejects.toThrow(CompileBusy);
    await Promise.resolve();
    expect(log).toEqual(['a']);
    expect(gate.queued).toBe(2);
    a.resolve('a');
    expect(await pa).toBe('a');
    await new Promise((r) => setTimeout(r, 0));
    expect(log).toEqual(['a', 'b']);
    // A new compile arriving while b runs waits behind c, never beside b.
    const pe = gate.run(async () => (log.push('e'), 'e'));
    b.resolve('b');
    expect(await Promise.all([pb, pc, pe])).toEqual(['b', 'c', 'e']);
    expect(log).toEqual(['a', 'b', 'c', 'e']);
  });

  it('a waiting compile whose client leaves is dropped from the line without running', async () => {
    const gate = new CompileGate(1, 4);
    const a = deferred();
    const pa = gate.run(() => a.p);
    const ac = new AbortController();
    let ran = false;
    const pb = gate.run(async () => ((ran = true), 'b'), ac.signal);
    ac.abort('gone');
    await expect(pb).rejects.toThrow(WorkAborted);
    expect(gate.queued).toBe(0);
    a.resolve('a');
    await pa;
    expect(ran).toBe(false);
  });
});

describe('aborting a compile', () => {
  it('stops slice-driven work at its next slice, closing the generator', async () => {
    let closed = false;
    let steps = 0;
    function* forever(): Generator<void, number, void> {
      try {
        for (;;) {
          steps++;
          yield;
        }
      } finally {
        closed = true;
      }
    }
    const ac = new AbortController();
    const p = runInSlices(forever(), 1, ac.signal);
    setTimeout(() => ac.abort('the client went away'), 20);
    await expect(p).rejects.toThrow(new WorkAborted('the client went away'));
    expect(closed).toBe(true);
    const at = steps;
    await new Promise((r) => setTimeout(r, 20));
    expect(steps).toBe(at);
  });

  it('compileWorkflowAsync of a 250 000-task graph aborted mid-way rejects with WorkAborted', async () => {
    const ac = new AbortController();
    const p = compileWorkflowAsync(bigReduce(500, 1), { signal: ac.signal });
    setTimeout(() => ac.abort('gone'), 30);
    await expect(p).rejects.toThrow(WorkAborted);
  });
});
