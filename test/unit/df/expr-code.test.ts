// The filter bytecode compiler (worker/kernels/df/expr-code.ts) run by the addon's host
// interpreter (native/src/df_expr.h, the code the CUDA kernel runs too) against the js evaluator
// (expr-eval.ts): the same rows for every expression, nulls, NaN, strings, bools and timestamps
// included; what the bytecode does not cover is reported, and malformed code is refused by the
// addon before it runs.
import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../../common/expr/check';
import { dfAddon } from '../../../native/df';
import { exprSchemaOf } from '../../../worker/kernels/df/columns';
import { compileFilterCode } from '../../../worker/kernels/df/expr-code';
import { compileForTables, truthMask } from '../../../worker/kernels/df/expr-eval';
import { filterNative } from '../../../worker/kernels/df/gpu';
import { dfTable, FILTERS, tableDiff } from '../../gpu/df-checks';
import { filter } from '../../../worker/kernels/df/ops';

const skip = process.env.GPUFLOW_NO_NATIVE === '1';
const table = dfTable(4000, 9);

const MORE = [
  'null is null and y > 90',
  'not (x > 1) or id < 0',
  '(x > 1 or id > 5) is null',
  '(x > 1 and id > 5) is not null and not (x < 3 and id < 20)',
  '-x % 7 > 2 and x / 0 > 1',
  'id * 1.5 + -2 != 7 and flag != true',
  'name in ["Alice", "Bob"] and id in [1, 2, 5, 8]',
  'name not in ["Alice"] or id not in [4]',
  '"Dan" <= name and name <= "George"',
  'name is not null and name != "Bob" and flag == false',
  'x + y - id * 2 / (y + 1) % 5 > round(x / 3, 2) and abs(-y) < 75 and log(y + 1) > 1',
];

describe.skipIf(skip)('filter bytecode on the host interpreter', () => {
  const d = dfAddon();
  if ('unavailable' in d) throw new Error(`the addon's df kernels are needed here: ${d.unavailable}`);
  const host = d.addon;

  for (const expr of [...FILTERS, ...MORE]) {
    it(`same rows as the js evaluator: ${expr}`, async () => {
      const got = await filterNative(host.dfFilter, table, expr);
      if ('unsupported' in got) throw new Error(got.unsupported);
      expect(tableDiff(got, filter(table, expr))).toBeNull();
      // And the mask itself, including rows the js evaluator leaves null.
      const mask = truthMask(compileForTables(compileFilter(expr, exprSchemaOf(table))).evaluate(table));
      expect(got.numRows).toBe(mask.reduce((a, b) => a + b, 0));
    });
  }

  it('reports what the bytecode does not cover', () => {
    const schema = exprSchemaOf(table);
    const t2 = table;
    const cases: [string, RegExp][] = [
      ['name == name', /comparison of two string expressions/],
      ['"a" == "b"', /comparison of two string expressions/],
    ];
    for (const [expr, why] of cases) {
      const r = compileFilterCode(compileFilter(expr, schema), t2);
      expect('unsupported' in r && r.unsupported).toMatch(why);
    }
  });

  it('the addon refuses malformed code before running it', async () => {
    const ok = compileFilterCode(compileFilter('x > 0.5', exprSchemaOf(table)), table);
    if ('unsupported' in ok) throw new Error(ok.unsupported);
    const n = table.numRows;
    const run = (code: Float64Array, bufs = ok.bufs, rows = n) => host.dfFilter(code, bufs, rows, new Int32Array(rows), new Float64Array(1));
    const bad = (edit: (c: Float64Array) => void) => {
      const c = ok.code.slice();
      edit(c);
      return c;
    };
    expect(() => run(bad((c) => (c[0] = 1)))).toThrow(TypeError);
    expect(() => run(bad((c) => (c[5] = 99)))).toThrow(/instruction 0: unknown op 99/);
    expect(() => run(bad((c) => (c[6] = 7)))).toThrow(/names buffer 7/);
    expect(() => run(ok.code, [new Float64Array(3), ...ok.bufs.slice(1)])).toThrow(/has 3 elements, needs 4000/);
    expect(() => run(bad((c) => (c[9] = 12)))).toThrow(/instruction 1: stack underflow/);
    expect(() => run(ok.code, ok.bufs, n + 1)).toThrow(/needs 4001/);
    await expect(run(ok.code)).resolves.toBeUndefined();
  });
});
