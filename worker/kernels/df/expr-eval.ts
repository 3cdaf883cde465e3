/**
 * Compiles a checked expression (common/expr) into a tree of closures that each compute a whole
 * column at once over typed arrays: `x * 2 > y` becomes three loops over Float64Arrays, not a
 * walk of the syntax tree per row. Literals stay scalars, so `x > 0.5` is one loop against a
 * constant; string tests run once per distinct string (dictionary entry), then per row as a
 * table lookup by code.
 *
 * Nulls follow SQL: arithmetic and comparisons with a null give null, and/or/not use three-valued
 * logic (false and null = false), and a filter keeps rows whose condition is true (not null).
 * NaN counts as null for `is null`, as pandas' isna does.
 */
import type { Table } from 'apache-arrow';
import { STRING_FUNCTIONS, type ArithOp, type CheckedExpr, type CmpOp, type Literal, type Node, type ValueType } from '../../../common/expr/ast';
import { boolView, column, numView, strView } from './columns';

export type Vec =
  | { t: 'num'; values: Float64Array; valid: Uint8Array | null }
  | { t: 'bool'; values: Uint8Array; valid: Uint8Array | null }
  | { t: 'str'; codes: Int32Array; dict: string[]; valid: Uint8Array | null };

type Const = number | string | boolean | null;
type Compiled = { k: 'const'; v: Const } | { k: 'vec'; f: (ctx: Ctx) => Vec };

interface Ctx {
  n: number;
  get(name: string, type: ValueType): Vec;
}

function andValid(a: Uint8Array | null, b: Uint8Array | null, n: number): Uint8Array | null {
  if (!a) return b;
  if (!b) return a;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = a[i] & b[i];
  return out;
}

function litValue(l: Literal): Const {
  switch (l.kind) {
    case 'null': return null;
    default: return l.value;
  }
}

// ---- arithmetic ---------------------------------------------------------------------------------

function floorMod(a: number, b: number): number {
  if (b === 0) return NaN;
  const r = a % b;
  return r !== 0 && (r < 0) !== (b < 0) ? r + b : r;
}

function arithScalar(op: ArithOp, a: number, b: number): number {
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return a / b;
    case '%': return floorMod(a, b);
  }
}

/** out = a op b where either side may be a scalar (never both). */
function arithLoop(op: ArithOp, a: Float64Array | number, b: Float64Array | number, n: number): Float64Array {
  const out = new Float64Array(n);
  if (typeof a !== 'number' && typeof b !== 'number') {
    switch (op) {
      case '+': for (let i = 0; i < n; i++) out[i] = a[i] + b[i]; break;
      case '-': for (let i = 0; i < n; i++) out[i] = a[i] - b[i]; break;
      case '*': for (let i = 0; i < n; i++) out[i] = a[i] * b[i]; break;
      case '/': for (let i = 0; i < n; i++) out[i] = a[i] / b[i]; break;
      case '%': for (let i = 0; i < n; i++) out[i] = floorMod(a[i], b[i]); break;
    }
  } else if (typeof b === 'number') {
    const x = a as Float64Array;
    switch (op) {
      case '+': for (let i = 0; i < n; i++) out[i] = x[i] + b; break;
      case '-': for (let i = 0; i < n; i++) out[i] = x[i] - b; break;
      case '*': for (let i = 0; i < n; i++) out[i] = x[i] * b; break;
      case '/': for (let i = 0; i < n; i++) out[i] = x[i] / b; break;
      case '%': for (let i = 0; i < n; i++) out[i] = floorMod(x[i], b); break;
    }
  } else {
    const y = b as Float64Array;
    const s = a as number;
    switch (op) {
      case '+': for (let i = 0; i < n; i++) out[i] = s + y[i]; break;
      case '-': for (let i = 0; i < n; i++) out[i] = s - y[i]; break;
      case '*': for (let i = 0; i < n; i++) out[i] = s * y[i]; break;
      case '/': for (let i = 0; i < n; i++) out[i] = s / y[i]; break;
      case '%': for (let i = 0; i < n; i++) out[i] = floorMod(s, y[i]); break;
    }
  }
  return out;
}

// ---- comparisons --------------------------------------------------------------------------------

export function cmpScalar(op: CmpOp, a: number | string | boolean, b: number | string | boolean): boolean {
  switch (op) {
    case '==': return a === b;
    case '!=': return a !== b;
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
  }
}

/** The comparison with its operands swapped (`a < b` is `b > a`). */
export function flip(op: CmpOp): CmpOp {
  return op === '<' ? '>' : op === '>' ? '<' : op === '<=' ? '>=' : op === '>=' ? '<=' : op;
}

/** Number comparison, either side a scalar. */
function cmpNumLoop(op: CmpOp, a: Float64Array, b: Float64Array | number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  if (typeof b === 'number') {
    switch (op) {
      case '==': for (let i = 0; i < n; i++) out[i] = a[i] === b ? 1 : 0; break;
      case '!=': for (let i = 0; i < n; i++) out[i] = a[i] !== b ? 1 : 0; break;
      case '<': for (let i = 0; i < n; i++) out[i] = a[i] < b ? 1 : 0; break;
      case '<=': for (let i = 0; i < n; i++) out[i] = a[i] <= b ? 1 : 0; break;
      case '>': for (let i = 0; i < n; i++) out[i] = a[i] > b ? 1 : 0; break;
      case '>=': for (let i = 0; i < n; i++) out[i] = a[i] >= b ? 1 : 0; break;
    }
  } else {
    switch (op) {
      case '==': for (let i = 0; i < n; i++) out[i] = a[i] === b[i] ? 1 : 0; break;
      case '!=': for (let i = 0; i < n; i++) out[i] = a[i] !== b[i] ? 1 : 0; break;
      case '<': for (let i = 0; i < n; i++) out[i] = a[i] < b[i] ? 1 : 0; break;
      case '<=': for (let i = 0; i < n; i++) out[i] = a[i] <= b[i] ? 1 : 0; break;
      case '>': for (let i = 0; i < n; i++) out[i] = a[i] > b[i] ? 1 : 0; break;
      case '>=': for (let i = 0; i < n; i++) out[i] = a[i] >= b[i] ? 1 : 0; break;
    }
  }
  return out;
}

/** Per-row lookup of a per-code answer: out[i] = table[codes[i]]. */
function lookup(codes: Int32Array, table: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = table[codes[i]];
  return out;
}

function cmpVecs(op: CmpOp, a: Vec, b: Vec, n: number): Vec {
  const valid = andValid(a.valid, b.valid, n);
  if (a.t === 'num' && b.t === 'num') return { t: 'bool', values: cmpNumLoop(op, a.values, b.values, n), valid };
  if (a.t === 'bool' && b.t === 'bool') {
    const out = new Uint8Array(n);
    const eq = op === '==';
    for (let i = 0; i < n; i++) out[i] = (a.values[i] === b.values[i]) === eq ? 1 : 0;
    return { t: 'bool', values: out, valid };
  }
  if (a.t === 'str' && b.t === 'str') {
    // Rank both dictionaries in one sorted order, then compare ranks per row.
    const all = [...new Set([...a.dict, ...b.dict])].sort();
    const rank = new Map(all.map((s, i) => [s, i]));
    const ra = Float64Array.from(a.dict, (s) => rank.get(s) as number);
    const rb = Float64Array.from(b.dict, (s) => rank.get(s) as number);
    const xa = new Float64Array(n);
    const xb = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      xa[i] = ra[a.codes[i]] ?? 0;
      xb[i] = rb[b.codes[i]] ?? 0;
    }
    return { t: 'bool', values: cmpNumLoop(op, xa, xb, n), valid };
  }
  throw new Error(`internal: cannot compare ${a.t} with ${b.t}`);
}

function cmpVecConst(op: CmpOp, a: Vec, c: Const, n: number): Vec {
  if (c === null) return { t: 'bool', values: new Uint8Array(n), valid: new Uint8Array(n) };
  if (a.t === 'num') return { t: 'bool', values: cmpNumLoop(op, a.values, Number(c), n), valid: a.valid };
  if (a.t === 'str') {
    const table = Uint8Array.from(a.dict, (s) => (cmpScalar(op, s, String(c)) ? 1 : 0));
    return { t: 'bool', values: lookup(a.codes, table, n), valid: a.valid };
  }
  const table = Uint8Array.from([0, 1], (v) => (cmpScalar(op, v === 1, Boolean(c)) ? 1 : 0));
  return { t: 'bool', values: lookup(Int32Array.from(a.values), table, n), valid: a.valid };
}

// ---- functions ----------------------------------------------------------------------------------

/** numpy.round: half to even at `digits` decimals. */
function roundHalfEven(x: number, p: number): number {
  const y = x * p;
  const f = Math.floor(y);
  const d = y - f;
  const r = d > 0.5 ? f + 1 : d < 0.5 ? f : f % 2 === 0 ? f : f + 1;
  return r / p;
}

/** Year, month (1-12) and day (1-31) of ms since the epoch, UTC (H. Hinnant's civil_from_days). */
function civil(ms: number): [number, number, number] {
  const z = Math.floor(ms / 86400000) + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, doy - Math.floor((153 * mp + 2) / 5) + 1];
}

const DAY_MS = 86400000;

/** A component of a timestamp (ms since the epoch, UTC): pandas' .dt.year ... .dt.dayofweek (Monday 0). */
function timePart(fn: string, ms: number): number {
  switch (fn) {
    case 'year': return civil(ms)[0];
    case 'month': return civil(ms)[1];
    case 'day': return civil(ms)[2];
    case 'hour': return Math.floor((((ms % DAY_MS) + DAY_MS) % DAY_MS) / 3600000);
    case 'minute': return Math.floor((((ms % 3600000) + 3600000) % 3600000) / 60000);
    case 'second': return Math.floor((((ms % 60000) + 60000) % 60000) / 1000);
    default: return (((Math.floor(ms / DAY_MS) + 3) % 7) + 7) % 7; // 1970-01-01 was a Thursday (3)
  }
}

/**
 * A string method on one value: lower / upper / split give strings, len an int (code points, as
 * Python's len), contains / startswith / endswith a boolean (the text is literal, not a regular
 * expression: pandas' regex=False). split(s, sep, i) is part i of s.split(sep) (negative i counts
 * from the end), null when there is no such part, as pandas' s.str.split(sep).str[i]. strip /
 * lstrip / rstrip remove whitespace (Python's str.strip()); replace(s, old, new) replaces every
 * occurrence of the literal old (pandas' regex=False); `arg` is split's i or replace's new.
 */
function strCall(fn: string, s: string, text: string, arg: number | string): string | number | boolean | null {
  switch (fn) {
    case 'strip': return s.trim();
    case 'lstrip': return s.trimStart();
    case 'rstrip': return s.trimEnd();
    case 'replace': return s.split(text).join(String(arg));
    case 'lower': return s.toLowerCase();
    case 'upper': return s.toUpperCase();
    case 'len': return [...s].length;
    case 'contains': return s.includes(text);
    case 'startswith': return s.startsWith(text);
    case 'endswith': return s.endsWith(text);
    default: {
      const parts = s.split(text);
      const i = Number(arg);
      const k = i < 0 ? parts.length + i : i;
      return k >= 0 && k < parts.length ? parts[k] : null;
    }
  }
}

/** A string method over a column: computed once per dictionary entry, then looked up by code. */
function strVec(fn: string, v: Vec & { t: 'str' }, n: number, text: string, i: number | string, type: ValueType): Vec {
  const per = v.dict.map((s) => strCall(fn, s, text, i));
  const codes = v.codes;
  const valid = new Uint8Array(n);
  for (let r = 0; r < n; r++) valid[r] = (!v.valid || v.valid[r]) && per[codes[r]] !== null ? 1 : 0;
  if (type === 'string') {
    const index = new Map<string, number>();
    const dict: string[] = [];
    const map = per.map((x) => {
      if (x === null) return 0;
      let c = index.get(x as string);
      if (c === undefined) {
        c = dict.length;
        dict.push(x as string);
        index.set(x as string, c);
      }
      return c;
    });
    const out = new Int32Array(n);
    for (let r = 0; r < n; r++) out[r] = map[codes[r]] ?? 0;
    return { t: 'str', codes: out, dict, valid };
  }
  if (type === 'bool') {
    const out = new Uint8Array(n);
    for (let r = 0; r < n; r++) out[r] = per[codes[r]] ? 1 : 0;
    return { t: 'bool', values: out, valid };
  }
  const out = new Float64Array(n);
  for (let r = 0; r < n; r++) out[r] = valid[r] ? (per[codes[r]] as number) : 0;
  return { t: 'num', values: out, valid };
}

function mapNum(x: Float64Array, n: number, f: (v: number) => number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = f(x[i]);
  return out;
}

function callScalar(fn: string, x: number, digits: number): number {
  switch (fn) {
    case 'abs': return Math.abs(x);
    case 'round': return roundHalfEven(x, 10 ** digits);
    case 'log': return Math.log(x);
    default: return timePart(fn, x);
  }
}

// ---- the compiler -------------------------------------------------------------------------------

function asVec(c: Compiled, type: ValueType, ctx: Ctx): Vec {
  if (c.k === 'vec') return c.f(ctx);
  const n = ctx.n;
  const valid = c.v === null ? new Uint8Array(n) : null;
  if (type === 'bool') return { t: 'bool', values: new Uint8Array(n).fill(c.v ? 1 : 0), valid };
  if (type === 'string') return { t: 'str', codes: new Int32Array(n), dict: [String(c.v)], valid };
  return { t: 'num', values: new Float64Array(n).fill(Number(c.v)), valid };
}

function compile(node: Node): Compiled {
  switch (node.kind) {
    case 'num': case 'str': case 'bool': case 'null': case 'ts':
      return { k: 'const', v: litValue(node) };
    case 'col': {
      const { name, type } = node;
      return { k: 'vec', f: (ctx) => ctx.get(name, type as ValueType) };
    }
    case 'neg': {
      const a = compile(node.arg);
      if (a.k === 'const') return { k: 'const', v: a.v === null ? null : -Number(a.v) };
      return { k: 'vec', f: (ctx) => {
        const v = a.f(ctx) as Vec & { t: 'num' };
        return { t: 'num', values: mapNum(v.values, ctx.n, (x) => -x), valid: v.valid };
      } };
    }
    case 'arith': {
      const a = compile(node.a);
      const b = compile(node.b);
      const op = node.op;
      if (a.k === 'const' && b.k === 'const') return { k: 'const', v: a.v === null || b.v === null ? null : arithScalar(op, Number(a.v), Number(b.v)) };
      return { k: 'vec', f: (ctx) => {
        const n = ctx.n;
        if (a.k === 'const' || b.k === 'const') {
          const c = (a.k === 'const' ? a.v : (b as { v: Const }).v);
          if (c === null) return { t: 'num', values: new Float64Array(n), valid: new Uint8Array(n) };
          const v = (a.k === 'vec' ? a.f(ctx) : (b as { f: (c: Ctx) => Vec }).f(ctx)) as Vec & { t: 'num' };
          const values = a.k === 'const' ? arithLoop(op, Number(c), v.values, n) : arithLoop(op, v.values, Number(c), n);
          return { t: 'num', values, valid: v.valid };
        }
        const va = a.f(ctx) as Vec & { t: 'num' };
        const vb = b.f(ctx) as Vec & { t: 'num' };
        return { t: 'num', values: arithLoop(op, va.values, vb.values, n), valid: andValid(va.valid, vb.valid, n) };
      } };
    }
    case 'cmp': {
      const a = compile(node.a);
      const b = compile(node.b);
      const op = node.op;
      if (a.k === 'const' && b.k === 'const') {
        return { k: 'const', v: a.v === null || b.v === null ? null : cmpScalar(op, a.v, b.v) };
      }
      if (b.k === 'const') return { k: 'vec', f: (ctx) => cmpVecConst(op, (a as { f: (c: Ctx) => Vec }).f(ctx), b.v, ctx.n) };
      if (a.k === 'const') return { k: 'vec', f: (ctx) => cmpVecConst(flip(op), b.f(ctx), a.v, ctx.n) };
      return { k: 'vec', f: (ctx) => cmpVecs(op, a.f(ctx), b.f(ctx), ctx.n) };
    }
    case 'not': {
      const a = compile(node.arg);
      if (a.k === 'const') return { k: 'const', v: a.v === null ? null : !a.v };
      return { k: 'vec', f: (ctx) => {
        const v = a.f(ctx) as Vec & { t: 'bool' };
        const out = new Uint8Array(ctx.n);
        for (let i = 0; i < ctx.n; i++) out[i] = v.values[i] ^ 1;
        return { t: 'bool', values: out, valid: v.valid };
      } };
    }
    case 'logic': {
      const a = compile(node.a);
      const b = compile(node.b);
      const isAnd = node.op === 'and';
      return { k: 'vec', f: (ctx) => {
        const n = ctx.n;
        const va = asVec(a, 'bool', ctx) as Vec & { t: 'bool' };
        const vb = asVec(b, 'bool', ctx) as Vec & { t: 'bool' };
        const out = new Uint8Array(n);
        if (!va.valid && !vb.valid) {
          if (isAnd) for (let i = 0; i < n; i++) out[i] = va.values[i] & vb.values[i];
          else for (let i = 0; i < n; i++) out[i] = va.values[i] | vb.values[i];
          return { t: 'bool', values: out, valid: null };
        }
        // Kleene logic: a decisive operand (false for and, true for or) wins over a null.
        const valid = new Uint8Array(n);
        const decisive = isAnd ? 0 : 1;
        for (let i = 0; i < n; i++) {
          const pa = va.valid ? va.valid[i] : 1;
          const pb = vb.valid ? vb.valid[i] : 1;
          const xa = va.values[i];
          const xb = vb.values[i];
          if ((pa && xa === decisive) || (pb && xb === decisive)) {
            out[i] = decisive;
            valid[i] = 1;
          } else if (pa && pb) {
            out[i] = 1 - decisive;
            valid[i] = 1;
          }
        }
        return { t: 'bool', values: out, valid };
      } };
    }
    case 'in': {
      // pandas' isin: never null; a missing value (null, NaN) is not in the list (the checker refuses a null in it).
      const a = compile(node.arg);
      const items = node.items.map(litValue).filter((v) => v !== null);
      const neg = node.negated ? 1 : 0;
      const missing = neg;
      if (a.k === 'const') return { k: 'const', v: a.v === null || Number.isNaN(a.v) ? missing === 1 : (items.includes(a.v) ? 1 : 0) !== neg };
      const fillMissing = (out: Uint8Array, valid: Uint8Array | null) => {
        if (valid) for (let i = 0; i < out.length; i++) if (!valid[i]) out[i] = missing;
        return { t: 'bool' as const, values: out, valid: null };
      };
      return { k: 'vec', f: (ctx) => {
        const v = a.f(ctx);
        const n = ctx.n;
        if (v.t === 'str') {
          const table = Uint8Array.from(v.dict, (s) => (items.includes(s) ? 1 : 0) ^ neg);
          return fillMissing(lookup(v.codes, table, n), v.valid);
        }
        if (v.t === 'bool') {
          const table = Uint8Array.from([false, true], (s) => (items.includes(s) ? 1 : 0) ^ neg);
          return fillMissing(lookup(Int32Array.from(v.values), table, n), v.valid);
        }
        const set = new Set(items.map(Number));
        const out = new Uint8Array(n);
        for (let i = 0; i < n; i++) {
          const x = v.values[i];
          out[i] = x !== x ? missing : (set.has(x) ? 1 : 0) ^ neg;
        }
        return fillMissing(out, v.valid);
      } };
    }
    case 'isnull': {
      const a = compile(node.arg);
      const neg = node.negated ? 1 : 0;
      if (a.k === 'const') return { k: 'const', v: (a.v === null || Number.isNaN(a.v)) !== node.negated };
      return { k: 'vec', f: (ctx) => {
        const v = a.f(ctx);
        const n = ctx.n;
        const out = new Uint8Array(n);
        const valid = v.valid;
        if (v.t === 'num') {
          const x = v.values;
          for (let i = 0; i < n; i++) out[i] = ((valid && !valid[i]) || x[i] !== x[i] ? 1 : 0) ^ neg;
        } else for (let i = 0; i < n; i++) out[i] = (valid && !valid[i] ? 1 : 0) ^ neg;
        return { t: 'bool', values: out, valid: null };
      } };
    }
    case 'call': {
      const a = compile(node.args[0]);
      const fn = node.fn;
      const second = node.args[1];
      const digits = second && second.kind === 'num' ? second.value : 0;
      if (STRING_FUNCTIONS.includes(fn)) {
        const text = second && second.kind === 'str' ? second.value : '';
        const third = node.args[2];
        const i = third && third.kind === 'num' ? third.value : third && third.kind === 'str' ? third.value : 0;
        const type = node.type as ValueType;
        if (a.k === 'const') return { k: 'const', v: a.v === null ? null : strCall(fn, String(a.v), text, i) };
        return { k: 'vec', f: (ctx) => strVec(fn, a.f(ctx) as Vec & { t: 'str' }, ctx.n, text, i, type) };
      }
      if (a.k === 'const') return { k: 'const', v: a.v === null ? null : callScalar(fn, Number(a.v), digits) };
      return { k: 'vec', f: (ctx) => {
        const v = a.f(ctx) as Vec & { t: 'num' };
        const n = ctx.n;
        const x = v.values;
        let out: Float64Array;
        if (fn === 'abs') out = mapNum(x, n, Math.abs);
        else if (fn === 'log') out = mapNum(x, n, Math.log);
        else if (fn === 'round') {
          const p = 10 ** digits;
          out = mapNum(x, n, (y) => roundHalfEven(y, p));
        } else out = mapNum(x, n, (y) => timePart(fn, y));
        return { t: 'num', values: out, valid: v.valid };
      } };
    }
  }
}

/** An expression compiled for evaluation over tables with the schema it was checked against. */
export interface CompiledExpr {
  type: ValueType;
  /** The expression's value for every row of `table`. */
  evaluate(table: Table): Vec;
}

export function compileForTables(checked: CheckedExpr): CompiledExpr {
  const c = compile(checked.root);
  return {
    type: checked.type,
    evaluate(table: Table): Vec {
      const cache = new Map<string, Vec>();
      const ctx: Ctx = {
        n: table.numRows,
        get(name, type) {
          let v = cache.get(name);
          if (!v) {
            const col = column(table, name, `expression '${checked.source}'`);
            if (type === 'string') v = { t: 'str', ...strView(col, name) };
            else if (type === 'bool') v = { t: 'bool', ...boolView(col, name) };
            else v = { t: 'num', ...numView(col, name) };
            cache.set(name, v);
          }
          return v;
        },
      };
      return asVec(c, checked.type, ctx);
    },
  };
}

/** Rows where a bool vector is true and not null, as a 0/1 mask. */
export function truthMask(v: Vec): Uint8Array {
  if (v.t !== 'bool') throw new Error('internal: a filter needs a bool vector');
  if (!v.valid) return v.values;
  const out = new Uint8Array(v.values.length);
  for (let i = 0; i < out.length; i++) out[i] = v.values[i] & v.valid[i];
  return out;
}
