/**
 * Runs one task spec on this worker: fused programs on the first backend that supports them,
 * combines of partials in js (they are small), everything else through the handler registry.
 */
import type { ChunkProgram, ChunkValue, Expr } from '../common/arrays';
import type { TaskSpec } from '../common/tasks';
import { combinePartials, finalizePartial } from './kernels/js/reduce';
import { findHandler, type HandlerContext, type HandlerResult } from './handlers';
import { loadAreaFor } from './register';

export async function executeSpec(spec: TaskSpec, inputs: ChunkValue[], ctx: HandlerContext): Promise<HandlerResult> {
  switch (spec.kind) {
    case 'program': {
      const program = spec.program.sizedBy === undefined ? spec.program : sized(spec.program, inputs);
      const backend = ctx.backends.find((b) => b.supportsProgram(program));
      if (!backend) throw new Error('no backend supports this program');
      return { value: await backend.runProgram(program, inputs), backend: backend.name };
    }
    case 'combine': {
      const parts = inputs.map((v, i) => {
        if (v.kind !== 'partial') throw new Error(`combine: input ${i} is a ${v.kind}, not a partial`);
        return v.partial;
      });
      const combined = combinePartials(parts);
      const value: ChunkValue = spec.finalize
        ? { kind: 'array', array: finalizePartial(combined, spec.ddof ?? 0, spec.dtype) }
        : { kind: 'partial', partial: combined };
      return { value, backend: 'js' };
    }
    default: {
      // An area's handlers are loaded with its first task (worker/register.ts).
      const handler = findHandler(spec.kind, spec.op) ?? ((await loadAreaFor(spec.kind)) ? findHandler(spec.kind, spec.op) : undefined);
      if (!handler) throw new Error(`no handler for ${spec.kind} op '${spec.op}'`);
      return handler(spec.params, inputs, ctx);
    }
  }
}

/**
 * A program of data-dependent length (ChunkProgram.sizedBy: a boolean-mask selection's block)
 * with its shape set from the dependency it reads: the program's shape, the regions that read
 * that dependency and astype's identity broadcast (all sent with 0 on the unknown axis, the
 * known axes as they are) become that block's shape, so each backend runs a plain program.
 */
function sized(p: ChunkProgram, inputs: ChunkValue[]): ChunkProgram {
  const v = inputs[p.sizedBy ?? -1];
  const shape = v?.kind === 'array' ? v.array.shape : null;
  // Only the unknown axes (sent as 0) may differ: a known one that does is a planning error.
  if (!shape || shape.length !== p.shape.length || p.shape.some((s, d) => s !== 0 && s !== shape[d])) {
    throw new Error(`program of shape (${p.shape.join(', ')}) sized by dependency ${p.sizedBy}: that is not an array of the same known axes`);
  }
  const planned = p.shape;
  const fix = (e: Expr): Expr => {
    switch (e.kind) {
      case 'leaf':
        return e.leaf.kind === 'input' && e.leaf.dep === p.sizedBy ? { kind: 'leaf', leaf: { ...e.leaf, region: { ...e.leaf.region, count: shape } } } : e;
      case 'binary':
        return { ...e, a: fix(e.a), b: fix(e.b) };
      case 'where':
        return { ...e, cond: fix(e.cond), a: fix(e.a), b: fix(e.b) };
      // A broadcast of a 0-d value keeps its shape.
      case 'broadcast':
        return e.from.length === planned.length && e.from.every((s, d) => s === planned[d]) ? { ...e, from: shape, arg: fix(e.arg) } : e;
      default:
        return { ...e, arg: fix(e.arg) };
    }
  };
  const { sizedBy: _, ...rest } = p;
  return { ...rest, shape, expr: fix(p.expr), ...(p.reduce ? { reduce: { ...p.reduce, offset: shape.map(() => 0), globalShape: shape } } : {}) };
}
