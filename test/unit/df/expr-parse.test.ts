import { describe, expect, it } from 'vitest';
import { MAX_NESTING, parseExpr } from '../../../common/expr/parse';
import { ExprError } from '../../../common/expr/errors';

describe('expression nesting', () => {
  it('parses nesting up to the limit and refuses deeper input with an ExprError, not a stack overflow', () => {
    const ok = `${'('.repeat(MAX_NESTING - 2)}x${')'.repeat(MAX_NESTING - 2)} > 1`;
    expect(parseExpr(ok)).toBeTruthy();
    for (const deep of [`${'('.repeat(10_000)}x${')'.repeat(10_000)}`, `${'-'.repeat(10_000)}x`, `${'not '.repeat(10_000)}b`]) {
      expect(() => parseExpr(deep)).toThrow(ExprError);
      expect(() => parseExpr(deep)).toThrow(/nested more than 200 levels deep/);
    }
  });
});
