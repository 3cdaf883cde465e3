/**
 * Runs one task spec on this worker: fused programs on the first backend that supports them,
 * combines of partials in js (they are small), everything else through the handler registry.
 */
import type { ChunkValue } from '../common/arrays';
import type { TaskSpec } from '../common/tasks';
import { combinePartials, finalizePartial } from './kernels/js/reduce';
import { findHandler, type HandlerContext, type HandlerResult } from './handlers';
import { loadAreaFor } from './register';

export async function executeSpec(spec: TaskSpec, inputs: ChunkValue[], ctx: HandlerContext): Promise<HandlerResult> {
  switch (spec.kind) {
    case 'program': {
      const backend = ctx.backends.find((b) => b.supportsProgram(spec.program));
      if (!backend) throw new Error('no backend supports this program');
      return { value: await backend.runProgram(spec.program, inputs), backend: backend.name };
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
