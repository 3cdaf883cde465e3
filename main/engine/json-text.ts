/**
 * JSON text to a value, with a syntax error's line and column: what reading a workflow file needs,
 * without validate.ts's op registry (an attached `gpuflow run` reads its workflow and lets serve
 * validate it, main/cli/run.ts).
 */
import { parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { WorkflowError, WorkflowErrors } from './errors';

/** Parses JSON text, naming the line and column of a syntax error (jsonc-parser reports offsets). */
export function parseJsonText(text: string, what = 'workflow'): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const errors: ParseError[] = [];
    parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
    const first = errors[0];
    if (!first) throw new WorkflowErrors([new WorkflowError(what, 'not valid JSON')]);
    const upto = text.slice(0, first.offset);
    const line = upto.split('\n').length;
    const col = first.offset - upto.lastIndexOf('\n');
    throw new WorkflowErrors([new WorkflowError(what, `not valid JSON (line ${line}, column ${col}): ${printParseErrorCode(first.error)}`)]);
  }
}
