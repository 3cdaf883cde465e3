/**
 * Loading and validating a workflow document. Every problem is reported with its JSON path and
 * node id ("nodes[3].params.chunks (node 'x'): must be positive"), all at once, before anything
 * runs. Order: JSON syntax -> document shape -> ops and params -> edges and port types -> cycles.
 * Compile-time checks that need shapes (main/engine/compile) come after and use the same form.
 */
import { parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import * as z from 'zod';
import type { PortSpec } from '../../common/catalog';
import { WORKFLOW_FORMAT, type ParamValue, type WorkflowDoc } from '../../common/workflow';
import { parseGroups } from '../../common/workflow-groups';
import { WorkflowError, WorkflowErrors } from './errors';
import { OPS } from './ops/registry';
import { checkParam, resolveRefs, withDefaults } from './params';
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
  const errors: WorkflowError[] = [];
  const index = new Map<string, number>();
  const params = new Map<string, Record<string, ParamValue>>();

  doc.nodes.forEach((n, i) => {
    const at = `nodes[${i}]`;
    if (index.has(n.id)) errors.push(new WorkflowError(`${at}.id`, `duplicate id (also nodes[${index.get(n.id)}])`, n.id));
    index.set(n.id, i);
    const op = OPS.get(n.op);
    if (!op) {
      errors.push(new WorkflowError(`${at}.op`, `unknown op '${n.op}' (known: ${[...OPS.keys()].join(', ')})`, n.id));
      return;
    }
    const problems: Array<[string, string]> = [];
    const resolved: Record<string, ParamValue> = Object.fromEntries(Object.entries(n.params).map(([k, v]) => [k, resolveRefs(v, doc.params, `${at}.params.${k}`, problems)]));
    for (const [path, detail] of problems) errors.push(new WorkflowError(path, detail, n.id));
    const known = new Set(op.spec.params.map((p) => p.name));
    for (const k of Object.keys(n.params)) {
      if (!known.has(k)) errors.push(new WorkflowError(`${at}.params.${k}`, `unknown param of '${n.op}' (it takes: ${[...known].join(', ')})`, n.id));
    }
    for (const spec of op.spec.params) {
      const problem = checkParam(spec, resolved[spec.name]);
      if (problem) errors.push(new WorkflowError(`${at}.params.${spec.name}`, problem, n.id));
      // Every path-taking param, of any op, through the one path policy (issue 19).
      else if (spec.kind === 'string' && spec.path && typeof resolved[spec.name] === 'string') {
        checkPath(resolved[spec.name], `${at}.params.${spec.name}`, {
          fail: (field, detail) => {
            errors.push(new WorkflowError(field, detail, n.id));
            return undefined as never;
          },
        });
      }
    }
    params.set(n.id, withDefaults(op.spec.params, resolved));
  });

  const incoming = new Map<string, Map<string, number>>();
  const findPort = (ports: PortSpec[], name: string) => ports.find((p) => p.name === name);
  doc.edges.forEach((e, i) => {
    const at = `edges[${i}]`;
    const si = index.get(e.source);
    const ti = index.get(e.target);
    if (si === undefined) return errors.push(new WorkflowError(`${at}.source`, `no node with id '${e.source}'`));
    if (ti === undefined) return errors.push(new WorkflowError(`${at}.target`, `no node with id '${e.target}'`));
    const sop = OPS.get(doc.nodes[si].op);
    const top = OPS.get(doc.nodes[ti].op);
    if (!sop || !top) return;
    const sp = findPort(sop.spec.outputs, e.sourcePort);
    const tp = findPort(top.spec.inputs, e.targetPort);
    if (!sp) return errors.push(new WorkflowError(`${at}.sourcePort`, `'${doc.nodes[si].op}' has no output '${e.sourcePort}' (outputs: ${sop.spec.outputs.map((p) => p.name).join(', ') || 'none'})`, e.source));
    if (!tp) return errors.push(new WorkflowError(`${at}.targetPort`, `'${doc.nodes[ti].op}' has no input '${e.targetPort}' (inputs: ${top.spec.inputs.map((p) => p.name).join(', ') || 'none'})`, e.target));
    if (sp.type !== tp.type) {
      return errors.push(new WorkflowError(at, `wrong port type: ${e.source}.${e.sourcePort} gives ${sp.type} but ${e.target}.${e.targetPort} takes ${tp.type}`, e.target));
    }
    const ins = incoming.get(e.target) ?? new Map<string, number>();
    if (ins.has(e.targetPort)) errors.push(new WorkflowError(`${at}.targetPort`, `input '${e.targetPort}' already connected by edges[${ins.get(e.targetPort)}]`, e.target));
    ins.set(e.targetPort, i);
    incoming.set(e.target, ins);
  });
  doc.nodes.forEach((n, i) => {
    const op = OPS.get(n.op);
    if (!op) return;
    for (const p of op.spec.inputs) {
      if (!p.optional && !incoming.get(n.id)?.has(p.name)) errors.push(new WorkflowError(`nodes[${i}].inputs.${p.name}`, `required ${p.type} input is not connected`, n.id));
    }
  });

  for (const p of grouped.problems) errors.push(new WorkflowError(p.path, p.message));

  const order = topoOrder(doc, index, errors);
  if (errors.length) throw new WorkflowErrors(errors);
  return { doc, params, order };
}

/** Kahn's algorithm; a cycle is reported with the nodes on it. */
function topoOrder(doc: WorkflowDoc, index: Map<string, number>, errors: WorkflowError[]): string[] {
  const indeg = new Map<string, number>(doc.nodes.map((n) => [n.id, 0]));
  const out = new Map<string, string[]>();
  for (const e of doc.edges) {
    if (!index.has(e.source) || !index.has(e.target)) continue;
    indeg.set(e.target, (indeg.get(e.target) ?? 0) + 1);
    out.set(e.source, [...(out.get(e.source) ?? []), e.target]);
  }
  const ready = doc.nodes.filter((n) => indeg.get(n.id) === 0).map((n) => n.id);
  const order: string[] = [];
  while (ready.length) {
    const id = ready.shift()!;
    order.push(id);
    for (const t of out.get(id) ?? []) {
      indeg.set(t, indeg.get(t)! - 1);
      if (indeg.get(t) === 0) ready.push(t);
    }
  }
  if (order.length < indeg.size) {
    const stuck = [...indeg.entries()].filter(([, d]) => d > 0).map(([id]) => id);
    errors.push(new WorkflowError('edges', `cycle through nodes ${stuck.map((s) => `'${s}'`).join(', ')}`, stuck[0]));
  }
  return order;
}

/** Reads, parses and validates workflow text. */
export function loadWorkflowText(text: string, overrides: Record<string, number | string | boolean> = {}): ValidWorkflow {
  return validateWorkflow(parseJsonText(text), overrides);
}
