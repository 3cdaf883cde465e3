/**
 * runLocal (local-run.ts) with the compiled graph in hand: compile options (e.g. a lowered
 * wholeArrayLimit), any task's value by key (e.g. the blocks of a large U), and results that
 * include array summaries computed by the summary tasks, as main/engine/run.ts reports them.
 */
import type { ChunkValue } from '../../common/arrays';
import type { WorkerConfig } from '../../common/messages';
import type { ResultValue } from '../../common/results';
import { compileWorkflow, type CompileOptions, type Compiled } from '../../main/engine/compile/compile';
import { summaryFromBundle } from '../../main/engine/compile/summary-lower';
import { scalarResult } from '../../main/engine/outputs';
import { assembleArray, digitsOf } from '../../main/engine/results';
import { tableResult } from '../../main/engine/table-result';
import { validateWorkflow } from '../../main/engine/validate';
import { executeSpec } from '../../worker/execute';
import type { ArrayBackend } from '../../worker/kernels/backend';
import { createJsBackend } from '../../worker/kernels/js';
import { registerAreaHandlers } from '../../worker/register';

const config: WorkerConfig = { id: 'local', kind: 'cpu', label: 'local', threads: 1, concurrency: 1, memoryLimit: 2 ** 32, peerToken: 'x'.repeat(16), backends: ['js'], heartbeatMs: 1000 };

export interface LocalTasks {
  compiled: Compiled;
  /** The value of task `key`, computing its deps first (memoised). */
  value(key: string): Promise<ChunkValue>;
  /** Every output as the engine reports it. */
  results(): Promise<Record<string, ResultValue>>;
}

/** `backends`: the worker's backends in order of preference (js alone unless given). */
export async function localTasks(doc: unknown, params: Record<string, number | string | boolean> = {}, opts: CompileOptions = {}, backends: ArrayBackend[] = [createJsBackend()]): Promise<LocalTasks> {
  await registerAreaHandlers();
  const compiled = compileWorkflow(validateWorkflow(doc, params), opts);
  const ctx = { config, backends, report: () => undefined };
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
  const results = async () => {
    const out: Record<string, ResultValue> = {};
    for (const [name, o] of Object.entries(compiled.outputs)) {
      if (o.kind === 'array') out[name] = assembleArray(o, await Promise.all(o.keys.map(value)));
      else if (o.kind === 'table') out[name] = tableResult(o, await Promise.all(o.keys.map(value)));
      else if (o.kind === 'values') out[name] = { kind: 'json', value: (await Promise.all(o.keys.map(value))).map((v) => (v.kind === 'json' ? v.value : v.kind)) };
      else {
        const v = await value(o.key);
        // With their float32 digits, as the engine's outputValue gives them (a float32 scalar's digest).
        if (o.kind === 'array-summary' && v.kind === 'arrays') out[name] = { kind: 'array', dtype: o.dtype, shape: o.shape, summary: summaryFromBundle(v.arrays), ...digitsOf(o) };
        else if (o.kind === 'scalar' && v.kind === 'array') out[name] = { ...scalarResult(o.dtype, v.array.data), ...digitsOf(o) };
        else out[name] = { kind: 'json', value: v.kind === 'json' ? v.value : v.kind };
      }
    }
    return out;
  };
  return { compiled, value, results };
}
