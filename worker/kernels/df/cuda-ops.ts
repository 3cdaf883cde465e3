/**
 * Which dataframe task ops a GPU worker runs on the device (gpu.ts), and the js fallback for the
 * rest. The answer names the backend that ran the op, as every task record does: 'cuda', 'js',
 * or 'js (cuda: why not)' when the op has a device kernel that could not take these inputs.
 */
import type { DfAddon } from '../../../native/df';
import { filterNative, groupbyChunkNative, hashJoinNative, type Unsupported } from './gpu';
import type { GroupbySpec } from './groupby';
import type { JoinSpec } from './join';
import { timeseriesGroupbyNative, type TimeseriesSource } from './timeseries-groupby';
import { DF_OPS, runDfOp, type DfInput, type DfOpName, type DfOutput } from './task-ops';

export const CUDA_DF_OPS = ['filter', 'groupby-chunk', 'timeseries-groupby-chunk', 'join', 'broadcast-join'] as const;

function isCudaOp(op: string): op is (typeof CUDA_DF_OPS)[number] {
  return (CUDA_DF_OPS as readonly string[]).includes(op);
}

async function onDevice(addon: DfAddon, op: (typeof CUDA_DF_OPS)[number], params: Record<string, unknown>, tables: DfInput[]): Promise<DfOutput | Unsupported> {
  const t = tables.map((x) => {
    if (x.kind !== 'table') throw new Error(`df ${op}: expected dataframe partitions`);
    return x.table;
  });
  let r;
  if (op === 'filter') r = await filterNative(addon.cudaDfFilter, t[0], params.expr as string);
  else if (op === 'groupby-chunk') r = await groupbyChunkNative(addon.cudaDfGroupby, t[0], params.spec as GroupbySpec);
  else if (op === 'timeseries-groupby-chunk') r = await timeseriesGroupbyNative(addon.cudaDfTimeseriesGroupby, params.source as TimeseriesSource, params.spec as GroupbySpec);
  else {
    const spec = params.spec as JoinSpec;
    if (op === 'broadcast-join' && spec.how === 'outer') return { unsupported: 'an outer broadcast join is refused by the js kernel' };
    if (spec.how === 'right') return { unsupported: 'the device join has no right join' };
    r = await hashJoinNative(addon.cudaDfJoin, t[0], t[1], spec);
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
  const addon = device;
  const def = DF_OPS[op as DfOpName];
  const parsed = def.params.safeParse(params);
  const want = def.inputs;
  // Bad params or input counts: the js path reports them with its messages.
  if (!parsed.success || (typeof want === 'number' && inputs.length !== want)) return { out: await runDfOp(op, params, inputs), backend: 'js' };
  const r = await onDevice(addon, op, parsed.data as Record<string, unknown>, inputs);
  if ('unsupported' in r) return { out: await runDfOp(op, params, inputs), backend: `js (cuda: ${short(r.unsupported)})` };
  return { out: r, backend: 'cuda' };
}
