/**
 * Which compiled graphs the Dask target can run, decided before any connection (and before
 * `export-dask` writes a script): the task kinds, ops and groupby aggregates gpuflow_dask
 * executes, from python/gpuflow_dask/supported.json (python/tests/test_supported.py checks that
 * list against the Python handler registries), and the programs its executor takes
 * (native/program-code.ts's unsupportedReason with negative strides, as
 * python/gpuflow_dask/encode.py ports it).
 */
import * as z from 'zod';
import type { TaskDef, TaskGraph } from '../../common/tasks';
import { unsupportedReason } from '../../native/program-code';
import list from '../../python/gpuflow_dask/supported.json';

const Supported = z.object({ kinds: z.array(z.string()), 'array-op': z.array(z.string()), df: z.array(z.string()), refusedAggs: z.array(z.string()) });
const SUPPORTED = Supported.parse(list);

/** A graph the Dask target refuses: the first task it cannot run, named by node and op. */
export class DaskUnsupportedError extends Error {
  constructor(
    readonly node: string,
    readonly op: string,
    what: string,
  ) {
    super(`node '${node}' (${op}): ${what} is not supported on Dask yet; run it on this workstation`);
  }
}

/** The aggregates of a df task's groupby spec (params.spec.aggs), where it has one. */
function aggsOf(params: Record<string, unknown>): string[] {
  const spec = params.spec;
  if (typeof spec !== 'object' || spec === null || !('aggs' in spec) || !Array.isArray(spec.aggs)) return [];
  return spec.aggs.flatMap((a: unknown) => (typeof a === 'object' && a !== null && 'agg' in a && typeof a.agg === 'string' ? [a.agg] : []));
}

/** Why gpuflow_dask cannot run task `t`, or null. */
export function daskRefusal(t: TaskDef): string | null {
  const s = t.spec;
  if (!SUPPORTED.kinds.includes(s.kind)) return s.kind === 'trial' ? `the tuning trial '${s.op}'` : `a '${s.kind}' task`;
  if (s.kind === 'program') {
    const why = unsupportedReason(s.program, { negativeStrides: true });
    return why === null ? null : `a chunk program of ${why}`;
  }
  if (s.kind === 'array-op' && !SUPPORTED['array-op'].includes(s.op)) return `the array op '${s.op}'`;
  if (s.kind === 'df') {
    if (!SUPPORTED.df.includes(s.op)) return `the dataframe op '${s.op}'`;
    const agg = aggsOf(s.params).find((a) => SUPPORTED.refusedAggs.includes(a));
    if (agg !== undefined) return `the groupby aggregate '${agg}'`;
  }
  return null;
}

/** The refusal of the first task of `graph` the Dask target cannot run, or null. */
export function firstRefusal(graph: TaskGraph): DaskUnsupportedError | null {
  for (const t of graph.tasks.values()) {
    const why = daskRefusal(t);
    if (why !== null) return new DaskUnsupportedError(t.node, t.op, why);
  }
  return null;
}
