/**
 * Our compiled task graph as the bridge receives it: TaskDefs as JSON, in dependency order, each
 * `program` spec with `code`, the base64 of native/program-code.ts's encoding (little-endian
 * float64), so Python runs the same program through the C-ABI kernels without a second encoder.
 * A program whose inputs' shapes are not known here (fed by an array-op) or that the native
 * interpreter does not take (integer dtypes) goes without `code`; the bridge then runs its NumPy
 * form (DASK-PROTOCOL change 1).
 */
import type { WireTask } from '../../common/dask-messages';
import type { TaskDef, TaskGraph } from '../../common/tasks';
import { encodeProgram, unsupportedReason } from '../../native/program-code';
import { outputKeys } from '../engine/outputs';
import { daskAssignTrees, daskFilterTree } from './supported';

/** The shape of a task's array output when the graph alone says it (an elementwise program). */
function shapeOf(t: TaskDef | undefined): number[] | null {
  return t && t.spec.kind === 'program' && !t.spec.program.reduce ? t.spec.program.shape : null;
}

function codeOf(t: TaskDef, tasks: Map<string, TaskDef>): string | undefined {
  if (t.spec.kind !== 'program' || unsupportedReason(t.spec.program) !== null) return undefined;
  try {
    const code = encodeProgram(t.spec.program, t.deps.map((d) => shapeOf(tasks.get(d))));
    return Buffer.from(code.buffer, code.byteOffset, code.byteLength).toString('base64');
  } catch {
    return undefined;
  }
}

export function wireTask(t: TaskDef, tasks: Map<string, TaskDef>): WireTask {
  const code = codeOf(t, tasks);
  // A filter's condition and an assign's expressions go parsed (common/expr/parse.ts), so Python
  // needs no second parser.
  const s = t.spec;
  const ast = s.kind === 'df' && s.op === 'filter' ? daskFilterTree(s.params) : null;
  const asts = s.kind === 'df' && s.op === 'assign' ? daskAssignTrees(s.params) : null;
  const spec =
    code !== undefined ? { ...s, code } : s.kind === 'df' && ast !== null ? { ...s, params: { ...s.params, ast } } : s.kind === 'df' && asts !== null ? { ...s, params: { ...s.params, asts } } : { ...s };
  return { key: t.key, deps: t.deps, spec: spec as Record<string, unknown>, resource: t.resource, node: t.node, op: t.op, outBytes: t.outBytes, workBytes: t.workBytes };
}

/** Every task (deps before dependents, as compiled) and the keys whose values the run reports. */
export function wireGraph(graph: TaskGraph): { tasks: WireTask[]; outputs: string[] } {
  const tasks = [...graph.tasks.values()].map((t) => wireTask(t, graph.tasks));
  const outputs = [...new Set(Object.values(graph.outputs).flatMap(outputKeys))];
  return { tasks, outputs };
}
