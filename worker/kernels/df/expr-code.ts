/**
 * Compiles a checked filter expression (common/expr) into the predicate bytecode the native
 * interpreter runs per row (native/src/df_expr.h: the same code on the host and the device).
 * The code is numbers only; columns travel beside it as typed arrays (numbers and timestamps as
 * float64, bools as 0/1, strings as dictionary codes), validity as byte masks.
 *
 * Strings never reach the device as text: a comparison of a string column with a literal, or an
 * `in [...]` over strings, becomes a 0/1 table over the column's dictionary (computed here with
 * the js evaluator's own comparison), looked up by code per row. What the bytecode does not cover
 * (two string columns compared, string literals on both sides) is reported, and the caller runs
 * the js kernel instead.
 */
import type { Table } from 'apache-arrow';
import type { CheckedExpr, CmpOp, Literal, Node } from '../../../common/expr/ast';
import { boolView, column, numView, strView, type StrView } from './columns';
import { cmpScalar, flip } from './expr-eval';

export type CodeBuffer = Float64Array | Int32Array | Uint8Array;

export interface FilterCode {
  code: Float64Array;
  bufs: CodeBuffer[];
}

// Must match native/src/df_expr.h.
const MAGIC = 26214;
const VERSION = 1;
const MAX_STACK = 32;
export const OP = {
  col: 1, lut: 2, const: 3, null: 4,
  '+': 10, '-': 11, '*': 12, '/': 13, '%': 14, neg: 15,
  '==': 20, '!=': 21, '<': 22, '<=': 23, '>': 24, '>=': 25,
  not: 30, and: 31, or: 32, isnull: 33, in: 34,
  abs: 40, round: 41, log: 42, year: 43, month: 44,
} as const;

class Unsupported extends Error {}


class Emitter {
  readonly ins: number[] = [];
  readonly pool: number[] = [];
  readonly bufs: CodeBuffer[] = [];
  private depth = 0;
  private readonly cols = new Map<string, { values: number; valid: number }>();
  private readonly strs = new Map<string, { view: StrView; codes: number; valid: number }>();

  constructor(private readonly table: Table, private readonly source: string) {}

  private buf(b: CodeBuffer): number {
    this.bufs.push(b);
    return this.bufs.length - 1;
  }

  op(code: number, a = 0, b = 0, c = 0, pop = 0, push = 1): void {
    this.ins.push(code, a, b, c);
    this.depth += push - pop;
    if (this.depth > MAX_STACK) throw new Unsupported(`the expression nests deeper than ${MAX_STACK} values`);
  }

  /** A number, timestamp or bool column as float64 values + validity buffer indices. */
  numCol(name: string, bool: boolean): { values: number; valid: number } {
    let c = this.cols.get(name);
    if (!c) {
      const col = column(this.table, name, `expression '${this.source}'`);
      const v = bool ? boolView(col, name) : numView(col, name);
      const values = v.values instanceof Float64Array ? v.values : Float64Array.from(v.values);
      c = { values: this.buf(values), valid: v.valid ? this.buf(v.valid) : -1 };
      this.cols.set(name, c);
    }
    return c;
  }

  strCol(name: string): { view: StrView; codes: number; valid: number } {
    let c = this.strs.get(name);
    if (!c) {
      const view = strView(column(this.table, name, `expression '${this.source}'`), name);
      c = { view, codes: this.buf(view.codes), valid: view.valid ? this.buf(view.valid) : -1 };
      this.strs.set(name, c);
    }
    return c;
  }

  /** Pushes table[code of row] (0/1) for a string column; null where the row is null. */
  lookup(name: string, truth: (s: string) => boolean): void {
    const c = this.strCol(name);
    const table = Uint8Array.from(c.view.dict, (s) => (truth(s) ? 1 : 0));
    this.op(OP.lut, c.codes, c.valid, this.buf(table));
  }
}

function literalConst(e: Emitter, l: Literal): void {
  switch (l.kind) {
    case 'null': e.op(OP.null); return;
    case 'bool': e.op(OP.const, l.value ? 1 : 0); return;
    case 'num': case 'ts': e.op(OP.const, l.value); return;
    case 'str': throw new Unsupported('a string value outside a comparison with a string column');
  }
}

function isStrCol(n: Node): n is Extract<Node, { kind: 'col' }> {
  return n.kind === 'col' && n.type === 'string';
}

function emit(e: Emitter, node: Node): void {
  switch (node.kind) {
    case 'num': case 'str': case 'bool': case 'null': case 'ts':
      return literalConst(e, node);
    case 'col': {
      if (node.type === 'string') throw new Unsupported(`string column '${node.name}' used as a value`);
      const c = e.numCol(node.name, node.type === 'bool');
      return e.op(OP.col, c.values, c.valid);
    }
    case 'neg': emit(e, node.arg); return e.op(OP.neg, 0, 0, 0, 1, 1);
    case 'not': emit(e, node.arg); return e.op(OP.not, 0, 0, 0, 1, 1);
    case 'arith':
      emit(e, node.a);
      emit(e, node.b);
      return e.op(OP[node.op], 0, 0, 0, 2, 1);
    case 'logic':
      emit(e, node.a);
      emit(e, node.b);
      return e.op(OP[node.op], 0, 0, 0, 2, 1);
    case 'cmp': {
      const { a, b, op } = node;
      if (a.type === 'string' || b.type === 'string') {
        // A string column against a string literal (either order); a null literal makes it null.
        const [colNode, lit, o] = isStrCol(a) ? [a, b, op] : isStrCol(b) ? [b, a, flip(op)] : [null, null, op];
        if (!colNode || !lit || (lit.kind !== 'str' && lit.kind !== 'null')) throw new Unsupported('a comparison of two string expressions');
        if (lit.kind === 'null') return e.op(OP.null);
        const value = lit.value;
        return e.lookup(colNode.name, (s) => cmpScalar(o, s, value));
      }
      if (a.type === 'bool' && b.type === 'bool' && op !== '==' && op !== '!=') throw new Unsupported(`'${op}' between bools`);
      emit(e, a);
      emit(e, b);
      return e.op(OP[op], 0, 0, 0, 2, 1);
    }
    case 'in': {
      // pandas' isin is never null: a missing value is not in the list (the checker refuses a null
      // in it). With the interpreter's Kleene and / or: 'x is not null and <in>', and for `not in`
      // 'x is null or <not in>'.
      const orMissing = node.negated;
      emit(e, { kind: 'isnull', arg: node.arg, negated: !orMissing, pos: node.pos, type: 'bool' });
      const items = node.items.filter((l) => l.kind !== 'null');
      if (isStrCol(node.arg)) {
        const set = new Set(items.map((l) => (l.kind === 'str' ? l.value : null)));
        const neg = node.negated;
        e.lookup(node.arg.name, (s) => set.has(s) !== neg);
      } else {
        if (node.arg.type === 'string') throw new Unsupported('`in` over a computed string');
        if (items.some((l) => l.kind === 'str')) throw new Unsupported('`in` with strings over a non-string value');
        emit(e, node.arg);
        const from = e.pool.length;
        for (const l of items) e.pool.push(l.kind === 'bool' ? (l.value ? 1 : 0) : (l as { value: number }).value);
        e.op(OP.in, from, items.length, node.negated ? 1 : 0, 1, 1);
      }
      return e.op(orMissing ? OP.or : OP.and, 0, 0, 0, 2, 1);
    }
    case 'isnull': {
      if (isStrCol(node.arg)) e.lookup(node.arg.name, () => true);
      else emit(e, node.arg);
      return e.op(OP.isnull, node.negated ? 1 : 0, 0, 0, 1, 1);
    }
    case 'call': {
      if (!(node.fn in OP)) throw new Unsupported(`${node.fn}() runs on the host only`);
      emit(e, node.args[0]);
      if (node.fn === 'round') {
        const d = node.args[1];
        const digits = d && d.kind === 'num' ? d.value : 0;
        return e.op(OP.round, 10 ** digits, 0, 0, 1, 1);
      }
      return e.op(OP[node.fn as keyof typeof OP], 0, 0, 0, 1, 1);
    }
  }
}

/** The bytecode of a checked bool expression over `table`, or why the interpreter cannot run it. */
export function compileFilterCode(checked: CheckedExpr, table: Table): FilterCode | { unsupported: string } {
  const e = new Emitter(table, checked.source);
  try {
    if (checked.type !== 'bool' && checked.type !== 'null') throw new Unsupported(`the expression is ${checked.type}, not a condition`);
    emit(e, checked.root);
  } catch (err) {
    if (err instanceof Unsupported) return { unsupported: `filter '${checked.source}': ${err.message}` };
    throw err;
  }
  const n = e.ins.length / 4;
  const code = new Float64Array(5 + e.ins.length + e.pool.length);
  code.set([MAGIC, VERSION, n, e.pool.length, MAX_STACK]);
  code.set(e.ins, 5);
  code.set(e.pool, 5 + e.ins.length);
  return { code, bufs: e.bufs };
}
