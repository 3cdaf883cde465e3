import { describe, expect, it } from 'vitest';
import { compileExpr, compileFilter, type ExprSchema } from '../../../common/expr/check';
import { ExprError } from '../../../common/expr/errors';
import { parseExpr } from '../../../common/expr/parse';
import { tableFromArrays } from 'apache-arrow';
import { compileForTables } from '../../../worker/kernels/df/expr-eval';
import { assign, filter } from '../../../worker/kernels/df/ops';
import { rows } from './helpers';

const schema: ExprSchema = { x: 'float', n: 'int', name: 'string', ok: 'bool', t: 'timestamp', 'order date': 'timestamp' };

function err(f: () => unknown): ExprError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExprError) return e;
    throw e;
  }
  throw new Error('expected an ExprError');
}

describe('expression parser', () => {
  it('binds and/or/not/comparison/arithmetic by precedence', () => {
    const n = parseExpr('not a + 1 * 2 > 3 or b and c');
    expect(n.kind).toBe('logic');
    if (n.kind !== 'logic') return;
    expect(n.op).toBe('or');
    expect(n.a.kind).toBe('not');
    expect(n.b.kind).toBe('logic');
    const e = compileExpr('-n * 2 + 10 % 4', schema);
    expect(e.type).toBe('int');
    expect(compileExpr('n / 2', schema).type).toBe('float');
  });

  it('reports syntax errors with the position and what was expected', () => {
    const e1 = err(() => parseExpr('x > (1 + 2'));
    expect(e1.code).toBe('EXPR_SYNTAX');
    expect(e1.pos).toBe(10);
    expect(e1.message).toContain("expected ')' to close the parenthesis but found the end of the expression");
    const e2 = err(() => parseExpr('x = 1'));
    expect(e2.pos).toBe(2);
    expect(e2.message).toContain("'=='");
    const e3 = err(() => parseExpr("name == 'abc"));
    expect(e3.pos).toBe(8);
    expect(e3.message).toContain('closing');
    expect(err(() => parseExpr('0 < x < 1')).message).toContain('do not chain');
    expect(err(() => parseExpr('x & y')).message).toContain("write 'and'");
    expect(err(() => parseExpr('x in [1, y]')).message).toContain('a literal');
    const e4 = err(() => parseExpr('sqrt(x)'));
    expect(e4.code).toBe('EXPR_UNKNOWN_FUNCTION');
    expect(e4.message).toContain('abs, round, log, year, month');
  });

  it('names a missing column and lists those available', () => {
    const e = err(() => compileExpr('x + y > 1', schema));
    expect(e.code).toBe('EXPR_UNKNOWN_COLUMN');
    expect(e.pos).toBe(4);
    expect(e.message).toContain("unknown column 'y'; available columns: x, n, name, ok, t, order date");
    expect(err(() => compileExpr('Name == 1', schema)).message).toContain("did you mean 'name'?");
  });

  it('names the column and types on a type mismatch', () => {
    const e = err(() => compileExpr("name + 1", schema));
    expect(e.code).toBe('EXPR_TYPE');
    expect(e.message).toContain("'+' needs numbers on both sides, but column 'name' (string) is not a number");
    expect(err(() => compileExpr("x == 'a'", schema)).message).toContain("cannot compare column 'x' (float) with the string 'a'");
    expect(err(() => compileExpr('x == null', schema)).message).toContain("is null");
    expect(err(() => compileExpr('year(x) > 1', schema)).message).toContain("year() needs a timestamp, but column 'x' (float)");
    expect(err(() => compileExpr("t > 'yesterday'", schema)).message).toContain('ISO date');
    expect(err(() => compileFilter('x + 1', schema)).message).toContain('must be a condition');
    expect(err(() => compileExpr("name in [1, 2]", schema)).message).toContain("column 'name' (string)");
  });

  it('accepts backticked names and timestamp literals', () => {
    const e = compileExpr("`order date` >= '2020-01-02' and ok", schema);
    expect(e.type).toBe('bool');
    expect(e.columns).toEqual(['order date', 'ok']);
  });
});

describe('expression evaluation (column-wise)', () => {
  const t = tableFromArrays({ x: Float64Array.from([1.5, -2, 0, 7.25]), n: Int32Array.from([1, 2, 3, 4]), name: ['a', 'b', 'a', 'c'] });

  it('computes arithmetic with literals on either side, with floor modulo', () => {
    const out = rows(assign(t, { a: '2 * x - n', b: '-n % 3', c: '10 / n', d: 'round(x * 3.5, 1)', e: 'abs(x)' }));
    expect(out.map((r) => r.a)).toEqual([2, -6, -3, 10.5]);
    expect(out.map((r) => r.b)).toEqual([2, 1, 0, 2]); // floor modulo, as Python/pandas
    expect(out.map((r) => r.c)).toEqual([10, 5, 10 / 3, 2.5]);
    expect(out.map((r) => r.d)).toEqual([5.2, -7, 0, 25.4]); // 5.25 -> 5.2 (half to even)
    expect(out.map((r) => r.e)).toEqual([1.5, 2, 0, 7.25]);
  });

  it('filters with string equality, in-lists and three-valued logic', () => {
    expect(rows(filter(t, "name == 'a' and x >= 0")).map((r) => r.n)).toEqual([1, 3]);
    expect(rows(filter(t, "name not in ['a'] or n == 1")).map((r) => r.n)).toEqual([1, 2, 4]);
    const withNull = tableFromArrays({ v: [1, null, 3] as (number | null)[] });
    // null > 1 is null: 'not' keeps it null, so neither filter keeps row 2.
    expect(filter(withNull, 'v > 1').numRows).toBe(1);
    expect(filter(withNull, 'not (v > 1)').numRows).toBe(1);
    expect(filter(withNull, 'v > 1 or v is null').numRows).toBe(2);
    const checked = compileFilter('v > 1 and false', { v: 'float' });
    const vec = compileForTables(checked).evaluate(withNull);
    expect(vec.t === 'bool' && Array.from(vec.values)).toEqual([0, 0, 0]);
  });

  it('replace and strip: literal text, errors naming the argument', () => {
    expect(compileExpr("replace(name, '-', '_')", schema).type).toBe('string');
    expect(compileExpr('strip(name)', schema).type).toBe('string');
    expect(err(() => compileExpr("replace(name, '-', n)", schema)).message).toContain('replace(s, old, new) needs new to be a string literal');
    expect(err(() => compileExpr("replace(name, '', 'x')", schema)).message).toContain('needs a non-empty old text');
    expect(err(() => compileExpr('strip(n)', schema)).message).toContain('strip() needs a string');
    const t = tableFromArrays({ name: ['  a-b ', 'c.*', null] as unknown as string[] });
    const out = assign(t, { r: "replace(name, '.*', '!')", s: 'strip(name)', l: 'lstrip(name)' });
    expect(rows(out).map((r) => [r.r, r.s, r.l])).toEqual([['  a-b ', 'a-b', 'a-b '], ['c!', 'c.*', 'c.*'], [null, null, null]]);
  });
});
