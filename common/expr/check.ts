/**
 * Type checker of the expression language: resolves column names against a table's schema and
 * gives every node a type, or throws an ExprError naming the column, the operator and the types.
 *
 * Rules: arithmetic takes numbers (int op int is int, except '/' which is float); comparisons
 * take two numbers, two strings, two booleans (== and != only) or two timestamps, and a string
 * literal compared with a timestamp is read as an ISO date ('2000-01-05' or
 * '2000-01-05T12:00:00', UTC unless it names a zone); and/or/not take booleans; `in` lists hold
 * literals of the tested value's type; `is [not] null` takes anything. Comparing with the
 * literal null is an error that points to `is null`, because `x == null` is never true.
 */
import { STRING_FUNCTIONS, STRING_RESULT, TIME_FUNCTIONS, type CheckedExpr, type Literal, type Node, type ValueType } from './ast';
import { ExprError } from './errors';
import { parseExpr } from './parse';

/** Column name -> type, in the table's column order (used to list the available columns). */
export type ExprSchema = Record<string, ValueType>;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** ms since the epoch of an ISO date string, UTC unless a zone is given; NaN if it is not one. */
export function parseIsoTimestamp(s: string): number {
  if (!ISO_DATE.test(s)) return NaN;
  let t = s.replace(' ', 'T');
  if (t.length === 10) t += 'T00:00:00';
  if (!/(Z|[+-]\d{2}:?\d{2})$/.test(t)) t += 'Z';
  return Date.parse(t);
}

function isNum(t: ValueType | undefined): boolean {
  return t === 'int' || t === 'float';
}

class Checker {
  private readonly used = new Set<string>();
  constructor(private readonly src: string, private readonly schema: ExprSchema) {}

  private typeError(pos: number, detail: string): never {
    throw new ExprError('EXPR_TYPE', pos, detail, this.src);
  }

  /** "column x (float)" or "the literal 'a' (string)" or "the expression at 5 (int)". */
  private what(n: Node): string {
    if (n.kind === 'col') return `column '${n.name}' (${n.type})`;
    if (n.kind === 'str') return `the string '${n.value}'`;
    if (n.kind === 'num') return `the number ${n.value} (${n.type})`;
    if (n.kind === 'bool') return `${n.value} (bool)`;
    if (n.kind === 'null') return 'null';
    const text = this.src.slice(n.pos).split(/\s/)[0];
    return `the ${n.kind === 'call' ? `call ${n.fn}(...)` : `expression at '${text}'`} (${n.type})`;
  }

  run(n: Node): Node {
    switch (n.kind) {
      case 'num': return { ...n, type: n.isInt && Number.isSafeInteger(n.value) ? 'int' : 'float' };
      case 'str': return { ...n, type: 'string' };
      case 'bool': return { ...n, type: 'bool' };
      case 'null': return { ...n, type: 'null' };
      case 'ts': return { ...n, type: 'timestamp' };
      case 'col': {
        const type = Object.prototype.hasOwnProperty.call(this.schema, n.name) ? this.schema[n.name] : undefined;
        if (!type) {
          const names = Object.keys(this.schema);
          const near = names.find((c) => c.toLowerCase() === n.name.toLowerCase());
          const hint = near ? ` (did you mean '${near}'?)` : '';
          throw new ExprError('EXPR_UNKNOWN_COLUMN', n.pos, `unknown column '${n.name}'${hint}; available columns: ${names.join(', ') || '(none)'}`, this.src);
        }
        this.used.add(n.name);
        return { ...n, type };
      }
      case 'neg': {
        const arg = this.run(n.arg);
        if (!isNum(arg.type)) this.typeError(n.pos, `unary '-' needs a number, but ${this.what(arg)} is not one`);
        return { ...n, arg, type: arg.type };
      }
      case 'not': {
        const arg = this.run(n.arg);
        if (arg.type !== 'bool') this.typeError(n.pos, `'not' needs a bool, but ${this.what(arg)} is not one`);
        return { ...n, arg, type: 'bool' };
      }
      case 'logic': {
        const a = this.run(n.a);
        const b = this.run(n.b);
        for (const s of [a, b]) if (s.type !== 'bool') this.typeError(n.pos, `'${n.op}' needs bools on both sides, but ${this.what(s)} is not one`);
        return { ...n, a, b, type: 'bool' };
      }
      case 'arith': {
        const a = this.run(n.a);
        const b = this.run(n.b);
        for (const s of [a, b]) if (!isNum(s.type)) this.typeError(n.pos, `'${n.op}' needs numbers on both sides, but ${this.what(s)} is not a number`);
        const type: ValueType = a.type === 'int' && b.type === 'int' && n.op !== '/' ? 'int' : 'float';
        return { ...n, a, b, type };
      }
      case 'cmp': {
        let a = this.run(n.a);
        let b = this.run(n.b);
        if (a.type === 'null' || b.type === 'null') {
          this.typeError(n.pos, `comparing with null is never true: write '${n.op === '!=' ? 'is not null' : 'is null'}'`);
        }
        if (a.type === 'timestamp' && b.kind === 'str') b = this.timestampLiteral(b);
        if (b.type === 'timestamp' && a.kind === 'str') a = this.timestampLiteral(a);
        const ok =
          (isNum(a.type) && isNum(b.type)) ||
          (a.type === b.type && (a.type !== 'bool' || n.op === '==' || n.op === '!='));
        if (!ok) this.typeError(n.pos, `cannot compare ${this.what(a)} with ${this.what(b)} using '${n.op}'`);
        return { ...n, a, b, type: 'bool' };
      }
      case 'in': {
        const arg = this.run(n.arg);
        const items = n.items.map((it) => {
          if (it.kind === 'null') this.typeError(it.pos, `null cannot be in an 'in' list: test it with 'is null'`);
          const lit = (arg.type === 'timestamp' && it.kind === 'str' ? this.timestampLiteral(it) : this.run(it)) as Literal;
          const ok = (isNum(arg.type) && isNum(lit.type)) || lit.type === arg.type;
          if (!ok) this.typeError(it.pos, `the list of 'in' holds ${this.what(lit)}, but ${this.what(arg)} is tested`);
          return lit;
        });
        return { ...n, arg, items, type: 'bool' };
      }
      case 'isnull': return { ...n, arg: this.run(n.arg), type: 'bool' };
      case 'call': {
        const args = n.args.map((x) => this.run(x));
        const arity = n.fn === 'round' ? [1, 2] : n.fn === 'split' || n.fn === 'replace' ? [3, 3] : ['contains', 'startswith', 'endswith'].includes(n.fn) ? [2, 2] : [1, 1];
        if (args.length < arity[0] || args.length > arity[1]) {
          const want = arity[0] === arity[1] ? `${arity[0]} argument` : `${arity[0]} or ${arity[1]} arguments`;
          throw new ExprError('EXPR_SYNTAX', n.pos, `expected ${want} in ${n.fn}(...), found ${args.length}`, this.src);
        }
        const x = args[0];
        if (TIME_FUNCTIONS.includes(n.fn)) {
          if (x.type !== 'timestamp') this.typeError(n.pos, `${n.fn}() needs a timestamp, but ${this.what(x)} is not one`);
          return { ...n, args, type: 'int' };
        }
        if (STRING_FUNCTIONS.includes(n.fn)) {
          if (x.type !== 'string') this.typeError(n.pos, `${n.fn}() needs a string, but ${this.what(x)} is not one`);
          if (args.length > 1 && args[1].kind !== 'str') this.typeError(args[1].pos, `${n.fn}(s, text${n.fn === 'split' ? ', i' : ''}) needs text to be a string literal`);
          if (n.fn === 'split' && (args[2].kind !== 'num' || args[2].type !== 'int')) this.typeError(args[2].pos, 'split(s, sep, i) needs i to be an integer literal');
          if (n.fn === 'split' && args[1].kind === 'str' && args[1].value === '') this.typeError(args[1].pos, 'split(s, sep, i) needs a non-empty separator');
          if (n.fn === 'replace' && args[2].kind !== 'str') this.typeError(args[2].pos, 'replace(s, old, new) needs new to be a string literal');
          if (n.fn === 'replace' && args[1].kind === 'str' && args[1].value === '') this.typeError(args[1].pos, 'replace(s, old, new) needs a non-empty old text');
          const type: ValueType = n.fn === 'len' ? 'int' : STRING_RESULT.includes(n.fn) ? 'string' : 'bool';
          return { ...n, args, type };
        }
        if (!isNum(x.type)) this.typeError(n.pos, `${n.fn}() needs a number, but ${this.what(x)} is not one`);
        if (n.fn === 'round' && args.length === 2 && (args[1].kind !== 'num' || args[1].type !== 'int')) {
          this.typeError(args[1].pos, 'round(x, digits) needs digits to be an integer literal');
        }
        const type: ValueType = n.fn === 'abs' ? (x.type as ValueType) : 'float';
        return { ...n, args, type };
      }
    }
  }

  private timestampLiteral(n: Node & { kind: 'str' }): Node {
    const value = parseIsoTimestamp(n.value);
    if (Number.isNaN(value)) this.typeError(n.pos, `expected an ISO date like '2000-01-05' or '2000-01-05T12:00:00' to compare with a timestamp, found '${n.value}'`);
    return { kind: 'ts', value, pos: n.pos, type: 'timestamp' };
  }

  columns(): string[] {
    return [...this.used];
  }
}

/** Type-checks a parsed tree against a schema. */
export function checkExpr(src: string, root: Node, schema: ExprSchema): CheckedExpr {
  const c = new Checker(src, schema);
  const typed = c.run(root);
  return { source: src, root: typed, type: typed.type as ValueType, columns: c.columns() };
}

/** Parses and type-checks in one step; throws ExprError. */
export function compileExpr(src: string, schema: ExprSchema): CheckedExpr {
  return checkExpr(src, parseExpr(src), schema);
}

/** Like compileExpr, and also requires a bool result (for filters). */
export function compileFilter(src: string, schema: ExprSchema): CheckedExpr {
  const e = compileExpr(src, schema);
  if (e.type !== 'bool') {
    throw new ExprError('EXPR_TYPE', 0, `a filter must be a condition (bool), but this expression is ${e.type}`, src);
  }
  return e;
}
