/**
 * Syntax tree of the expression language (filter and assign expressions over table columns).
 * The parser builds it without types; `check` returns a copy where every node's `type` is set,
 * which is what evaluators compile. `pos` is the 0-based character offset of the node's token.
 */

/** The types a column or an expression can have. `null` is the type of the bare literal null. */
export type ValueType = 'int' | 'float' | 'bool' | 'string' | 'timestamp' | 'null';

export type ArithOp = '+' | '-' | '*' | '/' | '%';
export type CmpOp = '==' | '!=' | '<' | '<=' | '>' | '>=';
export type FnName =
  | 'abs' | 'round' | 'log'
  | 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'dayofweek'
  | 'lower' | 'upper' | 'len' | 'contains' | 'startswith' | 'endswith' | 'split'
  | 'strip' | 'lstrip' | 'rstrip' | 'replace';
export const FUNCTIONS: readonly FnName[] = [
  'abs', 'round', 'log', 'year', 'month', 'day', 'hour', 'minute', 'second', 'dayofweek',
  'lower', 'upper', 'len', 'contains', 'startswith', 'endswith', 'split', 'strip', 'lstrip', 'rstrip', 'replace',
];
/** Components of a timestamp (UTC), each an int; dayofweek is pandas' (Monday 0). */
export const TIME_FUNCTIONS: readonly FnName[] = ['year', 'month', 'day', 'hour', 'minute', 'second', 'dayofweek'];
/**
 * String methods (pandas' .str): lower, upper, len, contains / startswith / endswith a literal,
 * split(s, sep, i), strip / lstrip / rstrip (whitespace), replace(s, old, new) (literal text).
 */
export const STRING_FUNCTIONS: readonly FnName[] = ['lower', 'upper', 'len', 'contains', 'startswith', 'endswith', 'split', 'strip', 'lstrip', 'rstrip', 'replace'];
/** The string methods whose result is a string (the others give an int or a bool). */
export const STRING_RESULT: readonly FnName[] = ['lower', 'upper', 'split', 'strip', 'lstrip', 'rstrip', 'replace'];

/** Literal values: numbers, strings, booleans, null, and timestamps (ms since the epoch, UTC). */
export type Literal =
  | { kind: 'num'; value: number; isInt: boolean; pos: number; type?: ValueType }
  | { kind: 'str'; value: string; pos: number; type?: ValueType }
  | { kind: 'bool'; value: boolean; pos: number; type?: ValueType }
  | { kind: 'null'; pos: number; type?: ValueType }
  /** Made only by the checker, from a string literal compared with a timestamp. */
  | { kind: 'ts'; value: number; pos: number; type?: ValueType };

export type Node =
  | Literal
  | { kind: 'col'; name: string; pos: number; type?: ValueType }
  | { kind: 'neg'; arg: Node; pos: number; type?: ValueType }
  | { kind: 'not'; arg: Node; pos: number; type?: ValueType }
  | { kind: 'arith'; op: ArithOp; a: Node; b: Node; pos: number; type?: ValueType }
  | { kind: 'cmp'; op: CmpOp; a: Node; b: Node; pos: number; type?: ValueType }
  | { kind: 'logic'; op: 'and' | 'or'; a: Node; b: Node; pos: number; type?: ValueType }
  | { kind: 'in'; arg: Node; items: Literal[]; negated: boolean; pos: number; type?: ValueType }
  | { kind: 'isnull'; arg: Node; negated: boolean; pos: number; type?: ValueType }
  | { kind: 'call'; fn: FnName; args: Node[]; pos: number; type?: ValueType };

/** The checker's output: a tree with every `type` set, its result type and the columns it reads. */
export interface CheckedExpr {
  source: string;
  root: Node;
  type: ValueType;
  columns: string[];
}

export function isLiteral(n: Node): n is Literal {
  return n.kind === 'num' || n.kind === 'str' || n.kind === 'bool' || n.kind === 'null' || n.kind === 'ts';
}
