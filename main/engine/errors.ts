/**
 * Workflow errors: every problem with a document names where it is (a JSON path such as
 * `nodes[3].params.chunks`, plus the node's id) and what to do. Validation collects them all;
 * compilation throws the first.
 */
export class WorkflowError extends Error {
  constructor(
    /** JSON path in the document, e.g. "nodes[3].params.chunks". */
    readonly path: string,
    readonly detail: string,
    /** Id of the node concerned, when there is one. */
    readonly node?: string,
  ) {
    super(`${path}${node !== undefined ? ` (node '${node}')` : ''}: ${detail}`);
    this.name = 'WorkflowError';
  }
}

export class WorkflowErrors extends Error {
  constructor(readonly errors: WorkflowError[]) {
    super(errors.map((e) => e.message).join('\n'));
    this.name = 'WorkflowErrors';
  }
}
