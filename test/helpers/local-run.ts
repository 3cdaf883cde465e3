/**
 * Runs a workflow's task graph in this process with the js kernels, in dependency order: the
 * same task specs the workers execute, without processes, for fast tests of ops and compiler.
 */
import type { ChunkValue } from '../../common/arrays';
import type { ResultValue } from '../../common/results';
import type { WorkerConfig } from '../../common/messages';
import { compileWorkflow, type CompileOptions } from '../../main/engine/compile/compile';
import { assembleArray } from '../../main/engine/results';
import { tableResult } from '../../main/engine/table-result';
import { validateWorkflow } from '../../main/engine/validate';
import { executeSpec } from '../../worker/execute';
import { createJsBackend } from '../../worker/kernels/js';
import { registerAreaHandlers } from '../../worker/register';

const config: WorkerConfig = { id: 'local', kind: 'cpu', label: 'local', threads: 1, concurrency: 1, memoryLimit: 2 ** 32, peerToken: 'x'.repeat(16), backends: ['js'], heartbeatMs: 1000 };

export async function runLocal(doc: unknown, params: Record<string, number | string | boolean> = {}, opts: CompileOptions = {}): Promise<Record<string, ResultValue>> {
  await registerAreaHandlers();
  const compiled = compileWorkflow(validateWorkflow(doc, params), opts);
  const ctx = { config, backends: [createJsBackend()], report: () => undefined };
  const memo = new Map<string, Promise<ChunkValue>>();
  const value = (key: string): Promise<ChunkValue> => {
    let p = memo.get(key);
    if (!p) {
      const t = compiled.tasks.get(key);
      if (!t) throw new Error(`no task ${key}`);
      p = Promise.all(t.deps.map(value)).then(async (inputs) => (await executeSpec(t.spec, inputs, ctx)).value);
      memo.set(key, p);
    }
    return p;
  };
  const out: Record<string, ResultValue> = {};
  for (const [name, o] of Object.entries(compiled.outputs)) {
    if (o.kind === 'array') out[name] = assembleArray(o, await Promise.all(o.keys.map(value)));
    else if (o.kind === 'table') out[name] = tableResult(o, await Promise.all(o.keys.map(value)));
    else if (o.kind === 'values') out[name] = { kind: 'json', value: (await Promise.all(o.keys.map(value))).map((v) => (v.kind === 'json' ? v.value : v.kind)) };
    else {
      const v = await value(o.key);
      if (o.kind === 'scalar' && v.kind === 'array') out[name] = { kind: 'scalar', dtype: o.dtype, value: Number(v.array.data[0]) };
      else out[name] = { kind: 'json', value: v.kind === 'json' ? v.value : v.kind };
    }
  }
  return out;
}

/** A linear workflow document from a list of [id, op, params] (each fed by the previous). */
export function chain(...nodes: Array<[string, string, Record<string, unknown>, string?]>): unknown {
  const edges = [];
  for (let i = 1; i < nodes.length; i++) edges.push({ source: nodes[i - 1][0], sourcePort: 'out', target: nodes[i][0], targetPort: nodes[i][3] ?? 'x' });
  return { format: 'gpuflow.workflow/1', nodes: nodes.map(([id, op, params]) => ({ id, op, params })), edges };
}
