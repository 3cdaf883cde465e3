/**
 * Binds the dataframe ops (task-ops.ts) to the worker's handler registry as ('df', op). Inputs and
 * outputs cross as ChunkValue 'table' (Arrow IPC bytes); an array input is passed through for
 * from-array. Imported by worker/register.ts (one line there, kept by that file's owner).
 */
import type { ChunkValue } from '../../../common/arrays';
import { registerHandler } from '../../handlers';
import { fromIPC, toIPC } from './ipc';
import { DF_OPS, runDfOp, type DfInput } from './task-ops';

function toInput(v: ChunkValue, op: string, i: number): DfInput {
  if (v.kind === 'table') return { kind: 'table', table: fromIPC(v.ipc) };
  if (v.kind === 'array') return { kind: 'array', array: v.array };
  throw new Error(`df ${op}: input ${i} is a ${v.kind}, expected a dataframe partition`);
}

for (const op of Object.keys(DF_OPS)) {
  registerHandler('df', op, async (params, inputs) => {
    const r = await runDfOp(op, params, inputs.map((v, i) => toInput(v, op, i)));
    const value: ChunkValue = r.kind === 'table' ? { kind: 'table', ipc: toIPC(r.table), rows: r.table.numRows } : { kind: 'json', value: r.value };
    return { value, backend: 'js' };
  });
}
