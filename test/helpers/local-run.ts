/**
 * Runs a workflow's task graph in this process with the js kernels, in dependency order: the
 * same task specs the workers execute, without processes, for fast tests of ops and compiler.
 * The outputs as the engine reports them (local-tasks.ts, which also gives single tasks' values).
 */
import type { ResultValue } from '../../common/results';
import type { CompileOptions } from '../../main/engine/compile/compile';
import { localTasks } from './local-tasks';

export async function runLocal(doc: unknown, params: Record<string, number | string | boolean> = {}, opts: CompileOptions = {}): Promise<Record<string, ResultValue>> {
  return (await localTasks(doc, params, opts)).results();
}

/** A linear workflow document from a list of [id, op, params] (each fed by the previous). */
export function chain(...nodes: Array<[string, string, Record<string, unknown>, string?]>): unknown {
  const edges = [];
  for (let i = 1; i < nodes.length; i++) edges.push({ source: nodes[i - 1][0], sourcePort: 'out', target: nodes[i][0], targetPort: nodes[i][3] ?? 'x' });
  return { format: 'gpuflow.workflow/1', nodes: nodes.map(([id, op, params]) => ({ id, op, params })), edges };
}

export type GraphNode = [string, string, Record<string, unknown>];
export type GraphEdge = [string, string, string];

/**
 * A workflow of `nodes` and `edges` ([source, target, targetPort]). Results are reported for
 * sinks only, so each node of `shown` that feeds others also feeds a sink `<id>_` (a '...' slice).
 */
export function graph(nodes: GraphNode[], edges: GraphEdge[], shown: string[] = []): unknown {
  const sinks: GraphNode[] = shown.map((id) => [`${id}_`, 'slice', { slices: '...' }]);
  return {
    format: 'gpuflow.workflow/1',
    nodes: [...nodes, ...sinks].map(([id, op, params]) => ({ id, op, params })),
    edges: [...edges, ...shown.map((id): GraphEdge => [id, `${id}_`, 'x'])].map(([source, target, targetPort]) => ({ source, sourcePort: 'out', target, targetPort })),
  };
}
