/**
 * Errors of the expression language. Each carries a machine-readable code, the 0-based character
 * position in the source where the problem is, and a message that says what was expected, with a
 * caret line under the source so a person can see where.
 */

export type ExprErrorCode =
  /** The text does not follow the grammar (what was expected is in the message). */
  | 'EXPR_SYNTAX'
  /** A column name that the table does not have (the message lists those it has). */
  | 'EXPR_UNKNOWN_COLUMN'
  /** An operator or function applied to values of the wrong type (names columns and types). */
  | 'EXPR_TYPE'
  /** A function name that the language does not define (the message lists those it does). */
  | 'EXPR_UNKNOWN_FUNCTION';

export class ExprError extends Error {
  override readonly name = 'ExprError';
  constructor(
    readonly code: ExprErrorCode,
    /** 0-based offset into `source`. */
    readonly pos: number,
    /** What went wrong, without the position or caret. */
    readonly detail: string,
    readonly source: string,
  ) {
    super(`${detail} (at character ${pos + 1})\n  ${source}\n  ${' '.repeat(pos)}^`);
  }
}
