/**
 * Which dataframe task ops a GPU worker runs on the device (gpu.ts), and the js fallback for the
 * rest. The answer names the backend that ran the op, as every task record does: 'cuda', 'js',
 * or 'js (cuda: why not)' when the op has a device kernel that could not take these inputs.
 */
import type { Table } from 'apache-arrow';
import { dfParamsOrNull } from '../../../common/df/op-params';
import type { DfAddon } from '../../../native/df';
import { filterNative, groupbyChunkNative, hashJoinNative, type Unsupported } from './gpu';
import { timeseriesGroupbyNative } from './timeseries-groupby';
import { DF_OPS, runDfOp, type DfInput, type DfOutput } from './task-ops';

export const CUDA_DF_OPS = ['filter', 'groupby-chunk', 'timeseries-groupby-chunk', 'join', 'broadcast-join'] as const;

function isCudaOp(op: string): op is (typeof CUDA_DF_OPS)[number] {
  return (CUDA_DF_OPS as readonly string[]).includes(op);
}

/** The op on the device; null where its params or inputs are wrong, for the js path to report. */
async function onDevice(addon: DfAddon, op: (typeof CUDA_DF_OPS)[number], params: unknown, inputs: DfInput[]): Promise<DfOutput | Unsupported | null> {
  const want = DF_OPS[op].inputs;
  if (typeof want === 'number' && inputs.length !== want) return null;
  // Read after the params parsed, so that wrong params are reported by the js path before a wrong input.
  const t = (i: number): Table => {
    const x = inputs[i];
    if (x.kind !== 'table') throw new Error(`df ${op}: expected dataframe partitions`);
    return x.table;
  };
  let r: Table | Unsupported;
  if (op === 'filter') {
    const p = dfParamsOrNull(op, params);
    if (!p) return null;
    r = await filterNative(addon.cudaDfFilter, t(0), p.expr);
  } else if (op === 'groupby-chunk') {
    const p = dfParamsOrNull(op, params);
    if (!p) return null;
    r = await groupbyChunkNative(addon.cudaDfGroupby, t(0), p.spec);
  } else if (op === 'timeseries-groupby-chunk') {
    const p = dfParamsOrNull(op, params);
    if (!p) return null;
    r = await timeseriesGroupbyNative(addon.cudaDfTimeseriesGroupby, p.source, p.spec);
  } else {
    const p = dfParamsOrNull(op, params);
    if (!p) return null;
    if (op === 'broadcast-join' && p.spec.how === 'outer') return { unsupported: 'an outer broadcast join is refused by the js kernel' };
    if (p.spec.how === 'right') return { unsupported: 'the device join has no right join' };
    r = await hashJoinNative(addon.cudaDfJoin, t(0), t(1), p.spec);
  }
  return 'unsupported' in r ? r : { kind: 'table', table: r };
}

const short = (s: string) => (s.length > 160 ? `${s.slice(0, 157)}...` : s);

/**
 * Runs a df op with the device kernels where they apply, else with js. `device`: the kernels, why
 * a cuda worker lacks them, or null on a worker without the cuda backend.
 */
export async function runDfOpOn(device: DfAddon | { unavailable: string } | null, op: string, params: unknown, inputs: DfInput[]): Promise<{ out: DfOutput; backend: string }> {
  if (!device || !isCudaOp(op)) return { out: await runDfOp(op, params, inputs), backend: 'js' };
  if ('unavailable' in device) return { out: await runDfOp(op, params, inputs), backend: `js (cuda: ${short(device.unavailable)})` };
  const r = await onDevice(device, op, params, inputs);
  // Bad params or input counts: the js path reports them with its messages.
  if (r === null) return { out: await runDfOp(op, params, inputs), backend: 'js' };
  if ('unsupported' in r) return { out: await runDfOp(op, params, inputs), backend: `js (cuda: ${short(r.unsupported)})` };
  return { out: r, backend: 'cuda' };
}
