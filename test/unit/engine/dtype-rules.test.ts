/**
 * NumPy's dtype rules (common/dtype-rules.ts) against NumPy itself: the promotion table is asked
 * of /usr/bin/python3's np.result_type, and workflows built from the issue's cases (an int32 array
 * with a Python float, true division, int32 with float32, concatenate) give NumPy's dtypes and
 * values on the js backend. NumPy here is 1.24, before NEP 50: where NumPy 2 differs (a Python
 * int too big for the array's dtype) the expectation is written out with a comment.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { BinaryOp, ReduceOp } from '../../../common/arrays';
import { binaryResultType, boolProblem, DTYPES, reduceResultType, scalarResultType, unaryResultType } from '../../../common/dtype-rules';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { explain } from '../../../main/engine/compile/explain';
import { validateWorkflow } from '../../../main/engine/validate';
import { chain, runLocal } from '../../helpers/local-run';

const BINARY: BinaryOp[] = ['add', 'sub', 'mul', 'div', 'pow', 'min', 'max', 'lt'];
// NumPy's ufunc for each op, looked up by name with getattr (never evaluated).
const NP_BINARY: Record<string, string> = { add: 'add', sub: 'subtract', mul: 'multiply', div: 'true_divide', pow: 'power', min: 'minimum', max: 'maximum', lt: 'less' };
const REDUCE: ReduceOp[] = ['sum', 'mean', 'min', 'max', 'var', 'std', 'argmin', 'argmax', 'prod', 'nanprod', 'nanmin', 'nanmax', 'nanmean'];

/** NumPy's answers for every pair of dtypes, op, Python scalar and reduction, in one python run. */
function numpyTable(): Record<string, string> {
  const script = `
import json, numpy as np
D = ${JSON.stringify(DTYPES)}
out = {}
def dt(f, *args):
    # NumPy refuses some ops on bools (bool - bool): 'error'.
    try:
        return str(np.asarray(f(*args)).dtype)
    except TypeError:
        return "error"
for a in D:
    x = np.ones(3, a)
    for b in D:
        y = np.ones(3, b)
        for op, f in ${JSON.stringify(NP_BINARY)}.items():
            out[f"{a} {op} {b}"] = dt(getattr(np, f), x, y)
    for op, f in ${JSON.stringify(NP_BINARY)}.items():
        out[f"{a} {op} int"] = dt(getattr(np, f), x, 2)
        out[f"{a} {op} float"] = dt(getattr(np, f), x, 0.5)
    for r in ${JSON.stringify(REDUCE)}:
        out[f"{r}({a})"] = str(np.asarray(getattr(np, r)(x)).dtype)
    out[f"exp({a})"] = dt(np.exp, x)
    out[f"abs({a})"] = dt(np.abs, x)
print(json.dumps(out))
`;
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' })) as Record<string, string>;
}

/** NumPy's answers the engine cannot give: an error, or a dtype it lacks. */
const REFUSED = ['error', 'int8', 'float16'];

describe('the promotion table is NumPy\'s', () => {
  const np = numpyTable();
  it.each(DTYPES.flatMap((a) => DTYPES.map((b) => [a, b] as const)))('%s with %s', (a, b) => {
    for (const op of BINARY) {
      const want = np[`${a} ${op} ${b}`];
      // bool - bool (an error) and bool ** bool (int8) are refused, saying why.
      if (REFUSED.includes(want)) expect(boolProblem(op, [a, b]), `${a} ${op} ${b}: NumPy ${want}`).toMatch(/NumPy/);
      else {
        expect(boolProblem(op, [a, b]), `${a} ${op} ${b}`).toBeNull();
        expect(binaryResultType(a, b, op), `${a} ${op} ${b}`).toBe(want);
      }
    }
  });
  it.each(DTYPES)('%s with a Python int and a Python float (NEP 50)', (a) => {
    for (const op of BINARY) {
      // NumPy 1.24 gives int8 for bool ** 2 (value-based casting); NumPy 2 (NEP 50) the default int.
      const int = a === 'bool' && op === 'pow' ? 'int64' : np[`${a} ${op} int`];
      expect(scalarResultType(a, 'int', op), `${a} ${op} 2`).toBe(int);
      expect(scalarResultType(a, 'float', op), `${a} ${op} 0.5`).toBe(np[`${a} ${op} float`]);
    }
  });
  it.each(DTYPES)('reductions and functions of %s', (a) => {
    for (const r of REDUCE) expect(reduceResultType(a, r), `${r}(${a})`).toBe(np[`${r}(${a})`]);
    // exp of a bool is float16 in NumPy: refused, naming it.
    if (REFUSED.includes(np[`exp(${a})`])) expect(boolProblem('exp', [a])).toMatch(/float16/);
    else expect(unaryResultType(a, 'exp')).toBe(np[`exp(${a})`]);
    expect(unaryResultType(a, 'abs')).toBe(np[`abs(${a})`]);
  });
});

const edge = (source: string, target: string, targetPort: string) => ({ source, sourcePort: 'out', target, targetPort });

function int32Range(start: number, stop: number): [string, string, Record<string, unknown>] {
  return ['a', 'arange', { start, stop, chunks: 4, dtype: 'int32' }];
}

describe('array ops give NumPy\'s dtypes and values (js)', () => {
  it('int32 / 2 is true division in float64', async () => {
    const r = await runLocal(chain(int32Range(0, 6), ['d', 'scalar_op', { op: 'div', value: 2 }]));
    expect(r.d).toMatchObject({ dtype: 'float64', data: [0, 0.5, 1, 1.5, 2, 2.5] });
  });
  it('int32 + 0.5 is float64; int32 + 2 stays int32; 2.0 given as a float is float64', async () => {
    const half = await runLocal(chain(int32Range(0, 4), ['d', 'scalar_op', { op: 'add', value: 0.5 }]));
    expect(half.d).toMatchObject({ dtype: 'float64', data: [0.5, 1.5, 2.5, 3.5] });
    const two = await runLocal(chain(int32Range(0, 4), ['d', 'scalar_op', { op: 'add', value: 2 }]));
    expect(two.d).toMatchObject({ dtype: 'int32', data: [2, 3, 4, 5] });
    const twoF = await runLocal(chain(int32Range(0, 4), ['d', 'scalar_op', { op: 'mul', value: 2, value_kind: 'float' }]));
    expect(twoF.d).toMatchObject({ dtype: 'float64', data: [0, 2, 4, 6] });
  });
  it('float32 + 0.1 stays float32, rounded as float32', async () => {
    const r = await runLocal(chain(['a', 'ones', { shape: [3], chunks: [2], dtype: 'float32' }], ['d', 'scalar_op', { op: 'add', value: 0.1 }]));
    expect(r.d).toMatchObject({ dtype: 'float32', data: Array(3).fill(Math.fround(1 + Math.fround(0.1))) });
  });
  it('int32 with float32 is float64: 16777217 + 0.0 keeps its last digit', async () => {
    const doc = {
      format: 'gpuflow.workflow/1',
      nodes: [
        { id: 'i', op: 'arange', params: { start: 16777215, stop: 16777219, chunks: 3, dtype: 'int32' } },
        { id: 'z', op: 'zeros', params: { shape: [4], chunks: [2], dtype: 'float32' } },
        { id: 's', op: 'binary', params: { op: 'add' } },
        { id: 'c', op: 'concatenate', params: { axis: 0 } },
      ],
      edges: [edge('i', 's', 'a'), edge('z', 's', 'b'), edge('i', 'c', 'x0'), edge('z', 'c', 'x1')],
    };
    const r = await runLocal(doc);
    expect(r.s).toMatchObject({ dtype: 'float64', data: [16777215, 16777216, 16777217, 16777218] });
    expect(r.c).toMatchObject({ dtype: 'float64', data: [16777215, 16777216, 16777217, 16777218, 0, 0, 0, 0] });
  });
  it('cumsum(arange(20)) / cumprod(arange(1, 21)) divides truly', async () => {
    const doc = {
      format: 'gpuflow.workflow/1',
      nodes: [
        { id: 'a', op: 'arange', params: { stop: 20, chunks: 6, dtype: 'int64' } },
        { id: 'b', op: 'arange', params: { start: 1, stop: 21, chunks: 7, dtype: 'int64' } },
        { id: 'cs', op: 'cumsum', params: {} },
        { id: 'cp', op: 'cumprod', params: {} },
        { id: 'q', op: 'binary', params: { op: 'div' } },
      ],
      edges: [edge('a', 'cs', 'x'), edge('b', 'cp', 'x'), edge('cs', 'q', 'a'), edge('cp', 'q', 'b')],
    };
    const r = await runLocal(doc);
    // Hand-computed: cumsum k(k+1)/2 over cumprod (k+1)!, each in float64 as NumPy divides.
    let fact = 1;
    const want = Array.from({ length: 20 }, (_, k) => ((fact *= k + 1), (k * (k + 1)) / 2 / fact));
    expect(r.q).toMatchObject({ dtype: 'float64', data: want });
  });
  it('refuses what NumPy 2 refuses of a Python int: out of int32 range, a negative integer power', async () => {
    // NumPy 1.24 would promote int32 + 2**40 to int64 by value; NumPy 2 (NEP 50) raises OverflowError.
    await expect(runLocal(chain(int32Range(0, 4), ['d', 'scalar_op', { op: 'add', value: 2 ** 40 }]))).rejects.toThrow(/out of bounds for int32/);
    await expect(runLocal(chain(int32Range(0, 4), ['d', 'scalar_op', { op: 'pow', value: -1 }]))).rejects.toThrow(/negative integer powers/);
  });
  it('where with a Python float keeps float32 and makes int32 float64', async () => {
    const doc = (dtype: string) => ({
      format: 'gpuflow.workflow/1',
      nodes: [
        { id: 'x', op: 'ones', params: { shape: [3], chunks: [2], dtype } },
        { id: 'w', op: 'where', params: { b_value: 0.5 } },
      ],
      edges: [edge('x', 'w', 'cond'), edge('x', 'w', 'a')],
    });
    expect((await runLocal(doc('float32'))).w).toMatchObject({ dtype: 'float32' });
    expect((await runLocal(doc('int32'))).w).toMatchObject({ dtype: 'float64' });
  });
});

describe('explain shows each port\'s dtype', () => {
  it('int32 / 2 is float64, its sum float64, an int32 sum int64', () => {
    const doc = chain(int32Range(0, 6), ['d', 'scalar_op', { op: 'div', value: 2 }], ['s', 'reduce', { op: 'sum' }]);
    expect(explain(compileWorkflow(validateWorkflow(doc))).portTypes).toEqual({ 'a.out': 'array int32 (6,)', 'd.out': 'array float64 (6,)', 's.out': 'scalar float64' });
    const ints = chain(int32Range(0, 6), ['s', 'reduce', { op: 'sum', axis: 0, keepdims: true }]);
    expect(explain(compileWorkflow(validateWorkflow(ints))).portTypes['s.out']).toBe('array int64 (1,)');
  });
});
