/**
 * Loading and validating a workflow document. Every problem is reported with its JSON path and
 * node id ("nodes[3].params.chunks (node 'x'): must be positive"), all at once, before anything
 * runs. Order: JSON syntax -> document shape -> ops and params -> edges and port types -> cycles.
 * The graph rules (ops, params, edges, inputs, cycles) are common/graph-rules.ts, shared with the
 * renderer; this file adds the document shape and the file-path policy. Compile-time checks that
 * need shapes (main/engine/compile) come after and use the same form.
 */
import * as z from 'zod';
import { WORKFLOW_FORMAT, type ParamValue, type WorkflowDoc } from '../../common/workflow';
import { checkGraph } from '../../common/graph-rules';
import { parseGroups } from '../../common/workflow-groups';
import { WorkflowError, WorkflowErrors } from './errors';
import { parseJsonText } from './json-text';
import { OPS } from './ops/registry';
import { checkPath } from './paths';

const paramValue: z.ZodType<ParamValue> = z.lazy(() =>
  z.union([z.number(), z.string(), z.boolean(), z.null(), z.array(paramValue), z.record(z.string(), paramValue)]),
);

const docSchema = z.object({
  format: z.literal(WORKFLOW_FORMAT, { message: `must be "${WORKFLOW_FORMAT}"` }),
  name: z.string().optional(),
  description: z.string().optional(),
  params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional(),
  nodes: z.array(
    z.object({
      id: z.string().min(1, 'must not be empty').max(200),
      op: z.string().min(1),
      params: z.record(z.string(), paramValue).default({}),
      position: z.object({ x: z.number(), y: z.number() }).optional(),
      label: z.string().optional(),
    }),
  ),
  edges: z.array(z.object({ source: z.string(), sourcePort: z.string(), target: z.string(), targetPort: z.string() })).default([]),
  // Editor frames: layout only, checked by common/workflow-groups.ts (shared with the renderer).
  groups: z.unknown().optional(),
});

function zodPath(path: PropertyKey[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
}

// In its own module (json-text.ts) so that reading a workflow loads no op registry; re-exported.
export { parseJsonText };

export interface ValidWorkflow {
  doc: WorkflowDoc;
  /** Node params with "$refs" resolved and defaults filled, by node id. */
  params: Map<string, Record<string, ParamValue>>;
  /** Node ids in an order where every node follows its inputs. */
  order: string[];
}

/** Validates a parsed document; throws WorkflowErrors listing every problem. */
export function validateWorkflow(input: unknown, overrides: Record<string, number | string | boolean> = {}): ValidWorkflow {
  const parsed = docSchema.safeParse(input);
  if (!parsed.success) {
    throw new WorkflowErrors(parsed.error.issues.map((i) => new WorkflowError(zodPath(i.path) || 'workflow', i.message)));
  }
  const grouped = parseGroups(parsed.data.groups, new Set(parsed.data.nodes.map((n) => n.id)));
  const doc: WorkflowDoc = { ...parsed.data, groups: grouped.groups, params: { ...(parsed.data.params ?? {}), ...overrides } } as WorkflowDoc;
  if (parsed.data.groups === undefined) delete doc.groups;
  for (const k of Object.keys(overrides)) {
    if (!Object.hasOwn(parsed.data.params ?? {}, k)) throw new WorkflowErrors([new WorkflowError(`params.${k}`, `is not a param of this workflow (it has: ${Object.keys(parsed.data.params ?? {}).join(', ') || 'none'})`)]);
  }
  const specs = new Map([...OPS].map(([name, op]) => [name, op.spec]));
  const checked = checkGraph(doc, specs);
  const errors = checked.problems.map((p) => new WorkflowError(p.path, p.detail, p.node));
  // Every path-taking param, of any op, through the one path policy (issue 19); needs the file
  // system, so it stays here rather than in the shared rules.
  doc.nodes.forEach((n, i) => {
    const op = OPS.get(n.op);
    const resolved = checked.params.get(n.id);
    if (!op || !resolved) return;
    for (const spec of op.spec.params) {
      const at = `nodes[${i}].params.${spec.name}`;
      if (spec.kind !== 'string' || !spec.path || typeof resolved[spec.name] !== 'string') continue;
      if (errors.some((e) => e.path === at)) continue;
      checkPath(resolved[spec.name], at, {
        fail: (field, detail) => {
          errors.push(new WorkflowError(field, detail, n.id));
          return undefined as never;
        },
      });
    }
  });
  for (const p of grouped.problems) errors.push(new WorkflowError(p.path, p.message));
  if (errors.length) throw new WorkflowErrors(errors);
  return { doc, params: checked.params, order: checked.order };
}

/** Whether any node sets a file-path param (a workflow whose meaning depends on the working directory). */
export function namesFiles(wf: ValidWorkflow): boolean {
  return wf.doc.nodes.some((n) => {
    const op = OPS.get(n.op);
    const params = wf.params.get(n.id);
    return !!op && !!params && op.spec.params.some((s) => s.kind === 'string' && s.path && typeof params[s.name] === 'string' && params[s.name] !== '');
  });
}

/** Reads, parses and validates workflow text. */
export function loadWorkflowText(text: string, overrides: Record<string, number | string | boolean> = {}): ValidWorkflow {
  return validateWorkflow(parseJsonText(text), overrides);
}
