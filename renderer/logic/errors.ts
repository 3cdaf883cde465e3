/**
 * Every message the editor shows for something the user did wrong, in one table (codes are stable;
 * tests and the UI refer to codes, the text says what to do next).
 */
export const EDITOR_ERRORS = {
  TYPE_MISMATCH: (from: string, to: string, port: string) =>
    `Cannot connect: output is ${from} but input "${port}" expects ${to}. Connect a ${to} output instead.`,
  SAME_NODE: () => 'Cannot connect a node to itself. Connect it to another node.',
  CYCLE: () => 'Cannot connect: this edge would make a cycle. Workflows must flow one way.',
  INPUT_TAKEN: (port: string) => `Input "${port}" already has a connection. Delete that edge first.`,
  UNKNOWN_PORT: (node: string, port: string) => `Node "${node}" has no port "${port}".`,
  UNKNOWN_OP: (op: string) => `Unknown node kind "${op}": it is not in this server's catalog.`,
  BAD_FILE: (detail: string) => `Not a gpuflow workflow file: ${detail}`,
} as const;

export type EditorErrorCode = keyof typeof EDITOR_ERRORS;

export class EditorError extends Error {
  constructor(
    readonly code: EditorErrorCode,
    message: string,
  ) {
    super(message);
  }
}
