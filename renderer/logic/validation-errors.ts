/**
 * Server validation errors are "path (node 'id'): detail" strings; the editor shows each on the
 * node it names, and the rest in the run bar.
 */
export interface PlacedErrors {
  byNode: Record<string, string[]>;
  general: string[];
}

const NODE_RE = /\(node '([^']+)'\)/;

export function placeErrors(errors: string[]): PlacedErrors {
  const out: PlacedErrors = { byNode: {}, general: [] };
  for (const e of errors) {
    const m = NODE_RE.exec(e);
    if (m) (out.byNode[m[1]] ??= []).push(e);
    else out.general.push(e);
  }
  return out;
}
