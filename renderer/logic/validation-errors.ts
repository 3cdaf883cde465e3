/**
 * Server validation errors are "path (node 'id'): detail" strings, e.g.
 * "nodes[1].params.value (node 'scalar_op'): is required". The editor shows each on the node it
 * names, as plain words ("value is required"), and under the field itself when the path names a
 * param; errors that name no node go to the strip under the toolbar.
 */
export interface PlacedErrors {
  byNode: Record<string, string[]>;
  /** node id → param name → plain message. */
  byField: Record<string, Record<string, string>>;
  general: string[];
}

const NODE_RE = /^(.*?)\s*\(node '([^']+)'\):\s*(.*)$/s;
const PARAM_RE = /^nodes\[\d+\]\.params\.([A-Za-z_][A-Za-z0-9_]*)(.*)$/;

/** "nodes[1].params.value" + "is required" → "value is required"; other paths keep their last part. */
export function plainMessage(path: string, detail: string): { field: string | null; text: string } {
  const m = PARAM_RE.exec(path);
  let where = m ? `${m[1]}${m[2]}` : path.replace(/^nodes\[\d+\]\.?/, '');
  // "chunks" + "[0] must be positive" reads "chunks[0] must be positive".
  const index = /^(\[\d+\])\s*(.*)$/s.exec(detail);
  if (index) {
    where += index[1];
    detail = index[2];
  }
  const joined = !where ? detail : /^(is|must|should|cannot|has|needs|expects)\b/.test(detail) ? `${where} ${detail}` : `${where}: ${detail}`;
  return { field: m ? m[1] : null, text: joined };
}

/** One server message read back into its node, field (a param name, or null) and plain words; no node: null. */
export function parseError(e: string): { node: string; field: string | null; text: string } | null {
  const m = NODE_RE.exec(e);
  if (!m) return null;
  const [, path, node, detail] = m;
  const p = plainMessage(path, detail);
  return { node, field: p.field, text: p.text };
}

export function placeErrors(errors: string[]): PlacedErrors {
  const out: PlacedErrors = { byNode: {}, byField: {}, general: [] };
  for (const e of errors) {
    const p = parseError(e);
    if (!p) {
      out.general.push(e);
      continue;
    }
    const list = (out.byNode[p.node] ??= []);
    if (!list.includes(p.text)) list.push(p.text);
    if (p.field) (out.byField[p.node] ??= {})[p.field] ??= p.text;
  }
  return out;
}
