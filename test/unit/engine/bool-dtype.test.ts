/**
 * The bool dtype (issue 24): what comparisons, predicates, logical ops, any / all and astype give,
 * how bools promote and reduce, the ops NumPy refuses on bools, and bool .npy files both ways.
 * Values hand-computed from NumPy's rules (checked against numpy 1.24 where the test says so),
 * each on js and on native-cpu with js behind it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNpy } from '../../../common/npy';
import type { ResultValue } from '../../../common/results';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { explain } from '../../../main/engine/compile/explain';
import { validateWorkflow } from '../../../main/engine/validate';
import { backendSets } from '../../helpers/backend-sets';
import { chain, graph as doc, type GraphNode } from '../../helpers/local-run';
import { localTasks } from '../../helpers/local-tasks';

type Node = GraphNode;

const a6: Node = ['a', 'arange', { start: 0, stop: 6, chunks: 4 }];

describe.each(backendSets())('bool dtype (%s)', (_, backends) => {
  const run = async (d: unknown): Promise<Record<string, ResultValue>> => (await localTasks(d, {}, {}, backends())).results();

  it('comparisons and predicates give bool; sum of bools is int64, mean float64, any / all bool', async () => {
    const out = await run(
      doc(
        [a6, ['c', 'scalar_op', { op: 'gt', value: 2 }], ['s', 'reduce', { op: 'sum' }], ['m', 'reduce', { op: 'mean' }], ['y', 'reduce', { op: 'any' }], ['l', 'reduce', { op: 'all' }], ['n', 'unary', { op: 'isnan' }]],
        [['a', 'c', 'x'], ['c', 's', 'x'], ['c', 'm', 'x'], ['c', 'y', 'x'], ['c', 'l', 'x'], ['a', 'n', 'x']],
        ['c'],
      ),
    );
    expect(out.c_).toMatchObject({ kind: 'array', dtype: 'bool', shape: [6], data: [0, 0, 0, 1, 1, 1] });
    expect(out.s).toMatchObject({ kind: 'scalar', dtype: 'int64', value: 3 });
    expect(out.m).toMatchObject({ kind: 'scalar', dtype: 'float64', value: 0.5 });
    expect(out.y).toMatchObject({ kind: 'scalar', dtype: 'bool', value: 1 });
    expect(out.l).toMatchObject({ kind: 'scalar', dtype: 'bool', value: 0 });
    expect(out.n).toMatchObject({ kind: 'array', dtype: 'bool', data: [0, 0, 0, 0, 0, 0] });
  });

  it('bool + bool is logical or (bool), so a following + 1 sees 1, not 2 (NumPy: [1 1 1 2 2 2])', async () => {
    const out = await run(
      doc(
        [a6, ['p', 'scalar_op', { op: 'gt', value: 2 }], ['q', 'scalar_op', { op: 'gt', value: 3 }], ['o', 'binary', { op: 'add' }], ['t', 'binary', { op: 'mul' }], ['r', 'scalar_op', { op: 'add', value: 1 }]],
        [['a', 'p', 'x'], ['a', 'q', 'x'], ['p', 'o', 'a'], ['q', 'o', 'b'], ['p', 't', 'a'], ['q', 't', 'b'], ['o', 'r', 'x']],
        ['o'],
      ),
    );
    expect(out.o_).toMatchObject({ dtype: 'bool', data: [0, 0, 0, 1, 1, 1] });
    expect(out.t).toMatchObject({ dtype: 'bool', data: [0, 0, 0, 0, 1, 1] });
    // bool with a Python int: int64 (NEP 50 and numpy 1.24 agree).
    expect(out.r).toMatchObject({ dtype: 'int64', data: [1, 1, 1, 2, 2, 2] });
  });

  it('logical_and / or / xor / not of numbers take each value\'s truth (NaN is True)', async () => {
    // x = [0, 0.5, NaN, -0, 2, 0]; y = x[::-1] = [0, 2, -0, NaN, 0.5, 0]
    const x: Node = ['x', 'load_npy', { path: npyOf([0, 0.5, NaN, -0, 2, 0]), chunks: [4] }];
    const out = await run(
      doc(
        [x, ['y', 'slice', { slices: '::-1' }], ['and', 'binary', { op: 'logical_and' }], ['or', 'binary', { op: 'logical_or' }], ['xor', 'binary', { op: 'logical_xor' }], ['not', 'unary', { op: 'logical_not' }], ['b', 'astype', { dtype: 'bool' }], ['b1', 'scalar_op', { op: 'add', value: 1 }]],
        [['x', 'y', 'x'], ['x', 'and', 'a'], ['y', 'and', 'b'], ['x', 'or', 'a'], ['y', 'or', 'b'], ['x', 'xor', 'a'], ['y', 'xor', 'b'], ['x', 'not', 'x'], ['x', 'b', 'x'], ['b', 'b1', 'x']],
        ['b'],
      ),
    );
    expect(out.and).toMatchObject({ dtype: 'bool', data: [0, 1, 0, 0, 1, 0] });
    expect(out.or).toMatchObject({ dtype: 'bool', data: [0, 1, 1, 1, 1, 0] });
    expect(out.xor).toMatchObject({ dtype: 'bool', data: [0, 0, 1, 1, 0, 0] });
    expect(out.not).toMatchObject({ dtype: 'bool', data: [1, 0, 0, 1, 0, 1] });
    expect(out.b_).toMatchObject({ dtype: 'bool', data: [0, 1, 1, 0, 1, 0] });
    // astype(bool) then + 1: 0.5 is True, so 2 (not 1.5 truncated); int64.
    expect(out.b1).toMatchObject({ dtype: 'int64', data: [1, 2, 2, 1, 2, 1] });
  });

  it('bool promotes to the other operand: bool + int32 is int32, bool * float32 float32, bool / bool float64', async () => {
    const out = await run(
      doc(
        [a6, ['i', 'astype', { dtype: 'int32' }], ['f', 'astype', { dtype: 'float32' }], ['p', 'scalar_op', { op: 'ge', value: 3 }], ['pi', 'binary', { op: 'add' }], ['pf', 'binary', { op: 'mul' }], ['pp', 'binary', { op: 'div' }], ['cs', 'cumsum', {}]],
        [['a', 'i', 'x'], ['a', 'f', 'x'], ['a', 'p', 'x'], ['p', 'pi', 'a'], ['i', 'pi', 'b'], ['p', 'pf', 'a'], ['f', 'pf', 'b'], ['p', 'pp', 'a'], ['p', 'pp', 'b'], ['p', 'cs', 'x']],
      ),
    );
    expect(out.pi).toMatchObject({ dtype: 'int32', data: [0, 1, 2, 4, 5, 6] });
    expect(out.pf).toMatchObject({ dtype: 'float32', data: [0, 0, 0, 3, 4, 5] });
    expect(out.pp).toMatchObject({ dtype: 'float64' });
    expect((out.pp as { data: number[] }).data.map((v) => (Number.isNaN(v) ? 'nan' : v))).toEqual(['nan', 'nan', 'nan', 1, 1, 1]);
    expect(out.cs).toMatchObject({ dtype: 'int64', data: [0, 0, 0, 1, 2, 3] });
  });
});

/** A float64 .npy of `values` in a new temporary folder. */
function npyOf(values: number[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'gpuflow-bool-'));
  const path = join(dir, 'x.npy');
  execFileSync('/usr/bin/python3', ['-c', `import numpy as np, json, sys; np.save(sys.argv[1], np.array(json.loads(sys.argv[2]), dtype=np.float64))`, path, JSON.stringify(values.map((v) => (Number.isNaN(v) ? 'nan' : v)))]);
  return path;
}

describe('bool refusals, .npy files and explain', () => {
  const run = async (d: unknown) => (await localTasks(d)).results();
  const cmp: Node = ['p', 'scalar_op', { op: 'gt', value: 2 }];

  it('refuses what NumPy refuses on bools, or answers in a dtype the engine lacks, naming what to do', async () => {
    const twice = (op: string) => doc([a6, cmp, ['o', 'binary', { op }]], [['a', 'p', 'x'], ['p', 'o', 'a'], ['p', 'o', 'b']]);
    await expect(run(twice('sub'))).rejects.toThrow(/bool - bool is an error in NumPy .*use logical_xor/);
    await expect(run(twice('pow'))).rejects.toThrow(/bool \*\* bool is int8 in NumPy/);
    await expect(run(chain(a6, cmp, ['n', 'unary', { op: 'neg' }]))).rejects.toThrow(/-bool is an error in NumPy .*use logical_not/);
    await expect(run(chain(a6, cmp, ['e', 'unary', { op: 'exp' }]))).rejects.toThrow(/exp of a bool is float16 in NumPy/);
  });

  it('reads a bool .npy NumPy wrote and writes one NumPy reads as bool', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuflow-bool-npy-'));
    const src = join(dir, 'm.npy');
    const dst = join(dir, 'out.npy');
    execFileSync('/usr/bin/python3', ['-c', 'import numpy as np, sys; np.save(sys.argv[1], np.array([[True, False, True], [False, False, True]]))', src]);
    const m = readNpy(new Uint8Array(readFileSync(src)));
    expect(m).toMatchObject({ dtype: 'bool', shape: [2, 3] });
    const out = await run(chain(['m', 'load_npy', { path: src, chunks: [1, 2] }], ['n', 'unary', { op: 'logical_not' }], ['s', 'save_npy', { path: dst }]));
    expect(out.s).toBeDefined();
    const seen = execFileSync('/usr/bin/python3', ['-c', 'import numpy as np, sys; a = np.load(sys.argv[1]); print(a.dtype, a.astype(int).ravel().tolist())', dst], { encoding: 'utf8' }).trim();
    expect(seen).toBe('bool [0, 1, 0, 1, 1, 0]');
  });

  it('explain shows bool on the output port of a comparison and int64 on its sum', () => {
    const ex = explain(compileWorkflow(validateWorkflow(chain(a6, cmp, ['s', 'reduce', { op: 'sum' }]))));
    const text = JSON.stringify(ex);
    expect(text).toMatch(/array bool \(6,\)/);
    expect(text).toMatch(/int64/);
  });
});
