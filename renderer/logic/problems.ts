/**
 * The problems list: everything that stops the graph from running, each naming its node and
 * field in plain words. Three sources, one shape:
 *   - the graph rules main validates with (common/graph-rules.ts), checked here as the graph
 *     changes, so Run is disabled with the reason before the server is asked;
 *   - fields whose text does not parse (the editor's `invalid` drafts);
 *   - what the server still refuses (a 400's `errors`, or /api/validate's compile-time checks),
 *     read back from its "path (node 'id'): detail" strings.
 * Framework-free; the strip (ui/GeneralErrors.tsx) and the Run button read it.
 */
import { checkGraph } from '../../common/graph-rules';
import type { Catalog, Graph } from './graph-model';
import { parseError, plainMessage } from './validation-errors';

export interface Problem {
  /** The node concerned; null for a problem of the whole workflow (a cycle through no one node, …). */
  node: string | null;
  /** The param the problem is in, when it is one (the inspector field to focus). */
  field: string | null;
  /** Plain words: "chunks[0] must be positive, got -5". */
  text: string;
}

/** Graph-rule problems of the graph as drawn; none while the catalog has not loaded. */
export function graphProblems(graph: Pick<Graph, 'nodes' | 'edges' | 'params'>, cat: Catalog): Problem[] {
  if (!cat.size) return [];
  return checkGraph(graph, cat).problems.map((p) => {
    const plain = plainMessage(p.path, p.detail);
    return { node: p.node ?? null, field: plain.field, text: plain.text };
  });
}

/** Fields that do not parse ("node/param" → error), as problems. */
export function draftProblems(invalid: Record<string, { error: string }>): Problem[] {
  return Object.entries(invalid).map(([key, d]) => {
    const cut = key.lastIndexOf('/');
    const field = key.slice(cut + 1);
    return { node: key.slice(0, cut), field, text: `${field}: ${d.error}` };
  });
}

/** Server messages as problems; one that names no node keeps its whole text. */
export function serverProblems(errors: string[]): Problem[] {
  return errors.map((e) => parseError(e) ?? { node: null, field: null, text: e });
}

/** Lists joined, each problem once (the server often repeats what the graph rules said). */
export function mergeProblems(...lists: Problem[][]): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const p of lists.flat()) {
    const k = `${p.node ?? ''}\u0000${p.text}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(p);
  }
  return out;
}

/** The Run button's tooltip while problems block it: the first problem and how many more. */
export function blockedReason(problems: Problem[]): string | null {
  if (!problems.length) return null;
  const p = problems[0];
  const first = p.node ? `node '${p.node}': ${p.text}` : p.text;
  return `Cannot run: ${first}${problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''}: see the problems list)` : ''}`;
}
