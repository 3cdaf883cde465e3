/**
 * Source fusion for dataframes, as dask-expr does it (projection pushdown, then blockwise fusion
 * of a source with the first step that reads it): a groupby's chunk task whose one input is a
 * timeseries partition becomes a single 'timeseries-groupby-chunk' task that generates only the
 * columns the groupby reads and groups them at once. The partition is never an Arrow table
 * crossing processes, and a GPU worker generates and groups it on the device
 * (worker/kernels/df/timeseries-groupby.ts), so nothing but the small partial crosses PCIe.
 *
 * The rewrite keeps the chunk task's key, node and output, so nothing downstream changes; the
 * timeseries tasks it no longer reads are culled with the rest when no other task or output needs
 * them. Worked example (examples/dataframe-groupby.json, 30 partitions): 30 'timeseries' +
 * 30 'groupby-chunk' + 4 'groupby-combine' + 1 'groupby-aggregate' tasks -> 30 fused + 4 + 1.
 */
import type { TaskDef } from '../../../common/tasks';
import { groupbyColumns } from '../../../common/df/timeseries-columns';
import { dfOpSpec, dfParamsOrNull, type DfOp, type DfOpParams } from '../../../common/df/op-params';
import { YIELD_EVERY, type Steps } from '../slices';

/** The params of `t` when it is a df task of `op` (parsed by the op's schema, so typed), else null. */
function dfOp<Op extends DfOp>(t: TaskDef | undefined, op: Op): DfOpParams<Op> | null {
  return t && t.spec.kind === 'df' && t.spec.op === op ? dfParamsOrNull(op, t.spec.params) : null;
}

/** Rewrites every fusable chunk task in place; returns how many it fused. */
export function* fuseDfSources(tasks: Map<string, TaskDef>): Steps<number> {
  let fused = 0;
  let n = 0;
  for (const t of tasks.values()) {
    if (++n % YIELD_EVERY === 0) yield;
    const chunk = dfOp(t, 'groupby-chunk');
    if (!chunk || t.deps.length !== 1) continue;
    const src = dfOp(tasks.get(t.deps[0]), 'timeseries');
    if (!src) continue;
    const spec = chunk.spec;
    const { columns, ...source } = src;
    const need = groupbyColumns(spec);
    // A source restricted to fewer columns than the groupby reads fails unfused, with its message.
    if (columns && !need.every((c) => columns.includes(c))) continue;
    tasks.set(t.key, {
      ...t,
      deps: [],
      spec: dfOpSpec('timeseries-groupby-chunk', { source, spec }),
      op: 'timeseries+groupby-chunk',
      workBytes: t.outBytes + source.rows * (8 * need.length + 1),
    });
    fused++;
  }
  return fused;
}
