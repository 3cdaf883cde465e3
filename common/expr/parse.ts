/**
 * Recursive-descent parser of the expression language. Grammar, loosest binding first:
 *
 *   expr    := and ('or' and)*
 *   and     := not ('and' not)*
 *   not     := 'not' not | cmp
 *   cmp     := sum ( CMPOP sum | ['not'] 'in' list | 'is' ['not'] 'null' )?
 *   sum     := product (('+' | '-') product)*
 *   product := unary (('*' | '/' | '%') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER | STRING | 'true' | 'false' | 'null' | NAME '(' args ')' | NAME | `QUOTED`
 *            | '(' expr ')'
 *   list    := '[' (literal (',' literal)*)? ']'      literal may be a negative number
 *
 * Comparisons do not chain (`a < b < c` is an error), as in SQL.
 */
import { FUNCTIONS, type ArithOp, type CmpOp, type FnName, type Literal, type Node } from './ast';
import { ExprError } from './errors';
import { tokenize, type Token } from './tokens';

const CMP_OPS = new Set(['==', '!=', '<', '<=', '>', '>=']);

function describe(t: Token): string {
  switch (t.kind) {
    case 'eof': return 'the end of the expression';
    case 'string': return `the string '${t.text}'`;
    case 'quoted': return `the column \`${t.text}\``;
    case 'ident': return `the name ${t.text}`;
    case 'number': return `the number ${t.text}`;
    default: return `'${t.text}'`;
  }
}

/** Nesting deeper than this is refused (the parser recurses; user text must not overflow the stack). */
export const MAX_NESTING = 200;

/** Sub-trees a node holds (for the height bound below). */
function kids(n: Node): Node[] {
  switch (n.kind) {
    case 'neg':
    case 'not':
    case 'in':
    case 'isnull':
      return [n.arg];
    case 'arith':
    case 'cmp':
    case 'logic':
      return [n.a, n.b];
    case 'call':
      return n.args;
    default:
      return [];
  }
}

class Parser {
  private i = 0;
  private depth = 0;
  /**
   * Height of each composite node built so far. Recursion depth alone does not bound the tree:
   * `a or b or ... ` (3 000 terms) loops at one level but builds a tree 3 000 deep, which the
   * checker and evaluators then recurse through (issue 29 item 7).
   */
  private readonly heights = new WeakMap<Node, number>();

  /** Records `n`'s height, refusing a tree taller than MAX_NESTING with the position of `n`. */
  private built<N extends Node>(n: N): N {
    let h = 1;
    for (const k of kids(n)) h = Math.max(h, (this.heights.get(k) ?? 1) + 1);
    if (h > MAX_NESTING) {
      throw new ExprError('EXPR_SYNTAX', n.pos, `expression more than ${MAX_NESTING} operators deep (each term of a chain of 'or', 'and', '+' ... counts one): split it into several nodes, or use 'in [...]' for a list of values`, this.src);
    }
    this.heights.set(n, h);
    return n;
  }

  /** Runs one level of recursive descent, refusing input nested beyond MAX_NESTING. */
  private nested<T>(fn: () => T): T {
    if (++this.depth > MAX_NESTING) throw new ExprError('EXPR_SYNTAX', this.t.pos, `expression nested more than ${MAX_NESTING} levels deep`, this.src);
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }
  constructor(private readonly src: string, private readonly toks: Token[]) {}

  private get t(): Token {
    return this.toks[this.i];
  }
  // A method call, so TypeScript does not keep a narrowing of `t` across a parse step.
  private peek(): Token {
    return this.toks[this.i];
  }
  private fail(expected: string, at: Token = this.t): never {
    throw new ExprError('EXPR_SYNTAX', at.pos, `expected ${expected} but found ${describe(at)}`, this.src);
  }
  private isOp(text: string): boolean {
    return this.t.kind === 'op' && this.t.text === text;
  }
  private isKw(text: string): boolean {
    return this.t.kind === 'keyword' && this.t.text === text;
  }
  private expectOp(text: string, context: string): Token {
    if (!this.isOp(text)) this.fail(`'${text}' ${context}`);
    return this.toks[this.i++];
  }

  parseAll(): Node {
    if (this.t.kind === 'eof') this.fail('an expression');
    const n = this.or();
    if (this.peek().kind !== 'eof') this.fail('an operator (and, or, ==, +, ...) or the end of the expression');
    return n;
  }

  private or(): Node {
    return this.nested(() => this.orInner());
  }

  private orInner(): Node {
    let a = this.and();
    while (this.isKw('or')) {
      const pos = this.toks[this.i++].pos;
      a = this.built({ kind: 'logic', op: 'or', a, b: this.and(), pos });
    }
    return a;
  }

  private and(): Node {
    let a = this.not();
    while (this.isKw('and')) {
      const pos = this.toks[this.i++].pos;
      a = this.built({ kind: 'logic', op: 'and', a, b: this.not(), pos });
    }
    return a;
  }

  private not(): Node {
    if (this.isKw('not')) {
      const pos = this.toks[this.i++].pos;
      return this.built({ kind: 'not', arg: this.nested(() => this.not()), pos });
    }
    return this.cmp();
  }

  private cmp(): Node {
    const a = this.sum();
    const t = this.t;
    let n: Node = a;
    if (t.kind === 'op' && CMP_OPS.has(t.text)) {
      this.i++;
      n = this.built({ kind: 'cmp', op: t.text as CmpOp, a, b: this.sum(), pos: t.pos });
    } else if (this.isKw('in')) {
      this.i++;
      n = this.built({ kind: 'in', arg: a, items: this.list(), negated: false, pos: t.pos });
    } else if (this.isKw('not')) {
      this.i++;
      if (!this.isKw('in')) this.fail("'in' after 'not' (as in: x not in [1, 2])");
      this.i++;
      n = this.built({ kind: 'in', arg: a, items: this.list(), negated: true, pos: t.pos });
    } else if (this.isKw('is')) {
      this.i++;
      let negated = false;
      if (this.isKw('not')) {
        this.i++;
        negated = true;
      }
      if (!this.isKw('null')) this.fail(`'null' after 'is${negated ? ' not' : ''}'`);
      this.i++;
      n = this.built({ kind: 'isnull', arg: a, negated, pos: t.pos });
    }
    const u = this.t;
    if (n !== a && u.kind === 'op' && CMP_OPS.has(u.text)) {
      throw new ExprError('EXPR_SYNTAX', u.pos, "comparisons do not chain: join them with 'and' (as in: 0 < x and x < 1)", this.src);
    }
    return n;
  }

  private list(): Literal[] {
    this.expectOp('[', "to open the list after 'in'");
    const items: Literal[] = [];
    if (!this.isOp(']')) {
      for (;;) {
        items.push(this.literal());
        if (this.isOp(',')) {
          this.i++;
          continue;
        }
        this.expectOp(']', 'or \',\' in the list');
        return items;
      }
    }
    this.i++;
    return items;
  }

  private literal(): Literal {
    const t = this.t;
    if (this.isOp('-') && this.toks[this.i + 1].kind === 'number') {
      const num = this.toks[this.i + 1];
      this.i += 2;
      return { kind: 'num', value: -(num.value as number), isInt: isIntText(num.text), pos: t.pos };
    }
    const lit = this.literalToken();
    if (!lit) this.fail('a literal (number, \'string\', true, false or null) in the list');
    return lit;
  }

  private literalToken(): Literal | null {
    const t = this.t;
    let lit: Literal | null = null;
    if (t.kind === 'number') lit = { kind: 'num', value: t.value as number, isInt: isIntText(t.text), pos: t.pos };
    else if (t.kind === 'string') lit = { kind: 'str', value: t.text, pos: t.pos };
    else if (t.kind === 'keyword' && (t.text === 'true' || t.text === 'false')) lit = { kind: 'bool', value: t.text === 'true', pos: t.pos };
    else if (t.kind === 'keyword' && t.text === 'null') lit = { kind: 'null', pos: t.pos };
    if (lit) this.i++;
    return lit;
  }

  private sum(): Node {
    let a = this.product();
    while (this.isOp('+') || this.isOp('-')) {
      const t = this.toks[this.i++];
      a = this.built({ kind: 'arith', op: t.text as ArithOp, a, b: this.product(), pos: t.pos });
    }
    return a;
  }

  private product(): Node {
    let a = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const t = this.toks[this.i++];
      a = this.built({ kind: 'arith', op: t.text as ArithOp, a, b: this.unary(), pos: t.pos });
    }
    return a;
  }

  private unary(): Node {
    if (this.isOp('-')) {
      const pos = this.toks[this.i++].pos;
      const arg = this.nested(() => this.unary());
      // Fold -literal so that `x > -1` compares with a constant, not a computed column.
      if (arg.kind === 'num') return { ...arg, value: -arg.value, pos };
      return this.built({ kind: 'neg', arg, pos });
    }
    return this.primary();
  }

  private primary(): Node {
    const t = this.t;
    const lit = this.literalToken();
    if (lit) return lit;
    if (t.kind === 'quoted') {
      this.i++;
      return { kind: 'col', name: t.text, pos: t.pos };
    }
    if (t.kind === 'ident') {
      this.i++;
      if (!this.isOp('(')) return { kind: 'col', name: t.text, pos: t.pos };
      const fn = t.text.toLowerCase();
      if (!(FUNCTIONS as readonly string[]).includes(fn)) {
        throw new ExprError('EXPR_UNKNOWN_FUNCTION', t.pos, `unknown function ${t.text}: expected one of ${FUNCTIONS.join(', ')}`, this.src);
      }
      this.i++;
      const args: Node[] = [];
      if (!this.isOp(')')) {
        for (;;) {
          args.push(this.or());
          if (this.isOp(',')) {
            this.i++;
            continue;
          }
          this.expectOp(')', `or ',' in the arguments of ${fn}`);
          break;
        }
      } else this.i++;
      return this.built({ kind: 'call', fn: fn as FnName, args, pos: t.pos });
    }
    if (this.isOp('(')) {
      this.i++;
      const n = this.or();
      this.expectOp(')', 'to close the parenthesis');
      return n;
    }
    return this.fail('a column, a literal, a function call or \'(\'');
  }
}

function isIntText(text: string): boolean {
  return /^[0-9]+$/.test(text);
}

/** Parses an expression; throws ExprError (code EXPR_SYNTAX or EXPR_UNKNOWN_FUNCTION) on bad text. */
export function parseExpr(src: string): Node {
  return new Parser(src, tokenize(src)).parseAll();
}
