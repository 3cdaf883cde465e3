/**
 * Binds the dataframe ops (task-ops.ts) to the worker's handler registry as ('df', op). Inputs and
 * outputs cross as ChunkValue 'table' (Arrow IPC bytes); an array input is passed through for
 * from-array. Imported by worker/register.ts (one line there, kept by that file's owner).
 *
 * On a worker with the cuda backend, filter, groupby-chunk and the joins run on the device
 * (cuda-ops.ts); the task's backend says 'cuda', or 'js (cuda: why)' where it fell back.
 */
import type { ChunkValue } from '../../../common/arrays';
import { dfCuda, type DfAddon } from '../../../native/df';
import { registerHandler } from '../../handlers';
import { runDfOpOn } from './cuda-ops';
import { fromIPC, toIPC } from './ipc';
import { DF_OPS, type DfInput } from './task-ops';

function toInput(v: ChunkValue, op: string, i: number): DfInput {
  if (v.kind === 'table') return { kind: 'table', table: fromIPC(v.ipc) };
  if (v.kind === 'array') return { kind: 'array', array: v.array };
  throw new Error(`df ${op}: input ${i} is a ${v.kind}, expected a dataframe partition`);
}

// Resolved once per process, on the first df task of a worker with the cuda backend.
let device: DfAddon | { unavailable: string } | undefined;
function deviceKernels(): DfAddon | { unavailable: string } {
  if (device === undefined) {
    const d = dfCuda();
    device = 'addon' in d ? d.addon : d;
  }
  return device;
}

for (const op of Object.keys(DF_OPS)) {
  registerHandler('df', op, async (params, inputs, ctx) => {
    const gpu = ctx.backends.some((b) => b.name === 'cuda') ? deviceKernels() : null;
    const { out: r, backend } = await runDfOpOn(gpu, op, params, inputs.map((v, i) => toInput(v, op, i)));
    const value: ChunkValue = r.kind === 'table' ? { kind: 'table', ipc: toIPC(r.table), rows: r.table.numRows } : { kind: 'json', value: r.value };
    return { value, backend };
  });
}
