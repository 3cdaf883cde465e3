/**
 * Tokenizer of the expression language. Words that are keywords (and, or, not, in, is, null,
 * true, false) are case-insensitive; column names are case-sensitive and may be written in
 * backticks to hold spaces or keywords (`` `order date` ``).
 */
import { ExprError } from './errors';

export type TokenKind = 'number' | 'string' | 'ident' | 'quoted' | 'keyword' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  /** For number: the literal text; string/quoted: the unescaped content; keyword: lower case. */
  text: string;
  pos: number;
  /** Parsed value of a number token. */
  value?: number;
}

export const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'is', 'null', 'true', 'false']);

// Longest first, so '<=' wins over '<'.
const OPS = ['==', '!=', '<=', '>=', '<>', '<', '>', '+', '-', '*', '/', '%', '(', ')', '[', ']', ','];

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}
function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}
function isIdentPart(c: string): boolean {
  return isIdentStart(c) || isDigit(c);
}

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const start = i;
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1] ?? ''))) {
      while (isDigit(src[i] ?? '')) i++;
      if (src[i] === '.') {
        i++;
        while (isDigit(src[i] ?? '')) i++;
      }
      if (src[i] === 'e' || src[i] === 'E') {
        let j = i + 1;
        if (src[j] === '+' || src[j] === '-') j++;
        if (!isDigit(src[j] ?? '')) throw new ExprError('EXPR_SYNTAX', j, 'expected digits of the exponent', src);
        i = j;
        while (isDigit(src[i] ?? '')) i++;
      }
      if (isIdentStart(src[i] ?? '')) throw new ExprError('EXPR_SYNTAX', i, `expected an operator after the number ${src.slice(start, i)}`, src);
      const text = src.slice(start, i);
      out.push({ kind: 'number', text, pos: start, value: Number(text) });
      continue;
    }
    if (isIdentStart(c)) {
      while (i < src.length && isIdentPart(src[i])) i++;
      const text = src.slice(start, i);
      const lower = text.toLowerCase();
      out.push(KEYWORDS.has(lower) ? { kind: 'keyword', text: lower, pos: start } : { kind: 'ident', text, pos: start });
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      // Quotes are doubled ('it''s') or backslash-escaped ('it\'s') inside.
      let text = '';
      i++;
      for (;;) {
        if (i >= src.length) {
          const what = c === '`' ? 'column name' : 'string';
          throw new ExprError('EXPR_SYNTAX', start, `expected a closing ${c} for the ${what} that starts here`, src);
        }
        const d = src[i];
        if (d === '\\' && i + 1 < src.length) {
          text += src[i + 1];
          i += 2;
        } else if (d === c && src[i + 1] === c) {
          text += c;
          i += 2;
        } else if (d === c) {
          i++;
          break;
        } else {
          text += d;
          i++;
        }
      }
      out.push({ kind: c === '`' ? 'quoted' : 'string', text, pos: start });
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (op) {
      out.push({ kind: 'op', text: op === '<>' ? '!=' : op, pos: start });
      i += op.length;
      continue;
    }
    if (c === '=') throw new ExprError('EXPR_SYNTAX', i, "expected '==' to compare ('=' alone is not an operator)", src);
    if (c === '&' || c === '|' || c === '!' || c === '~') {
      const word = c === '&' ? 'and' : c === '|' ? 'or' : 'not';
      throw new ExprError('EXPR_SYNTAX', i, `unexpected '${c}': write '${word}'`, src);
    }
    throw new ExprError('EXPR_SYNTAX', i, `unexpected character '${c}'`, src);
  }
  out.push({ kind: 'eof', text: '', pos: src.length });
  return out;
}
