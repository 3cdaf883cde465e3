/**
 * Which compiled graphs the Dask target can run, decided before any connection (and before
 * `export-dask` writes a script): the task kinds, ops and groupby aggregates gpuflow_dask
 * executes, from python/gpuflow_dask/supported.json (python/tests/test_supported.py checks that
 * list against the Python handler registries); every chunk program but a reduction over more
 * axes than the native interpreter's limit.
 */
import * as z from 'zod';
import type { Node } from '../../common/expr/ast';
import { parseExpr } from '../../common/expr/parse';
import type { TaskDef, TaskGraph } from '../../common/tasks';
import type { ChunkProgram } from '../../common/arrays';
import { LIMITS } from '../../native/program-code';
import list from '../../python/gpuflow_dask/supported.json';

const Supported = z.object({
  kinds: z.array(z.string()),
  'array-op': z.array(z.string()),
  df: z.array(z.string()),
  refusedAggs: z.array(z.string()),
  /** Why an op (or the task kind 'trial') cannot run on Dask, where the reason is not "not yet". */
  reasons: z.record(z.string(), z.string()),
});
const SUPPORTED = Supported.parse(list);

/** A graph the Dask target refuses: the first task it cannot run, named by node and op. */
export class DaskUnsupportedError extends Error {
  constructor(
    readonly node: string,
    readonly op: string,
    what: string,
    reason?: string,
  ) {
    super(`node '${node}' (${op}): ${what} is not supported on Dask ${reason === undefined ? 'yet' : `(${reason})`}; run it on this workstation`);
  }
}

/** The aggregates of a df task's groupby spec (params.spec.aggs), where it has one. */
function aggsOf(params: Record<string, unknown>): string[] {
  const spec = params.spec;
  if (typeof spec !== 'object' || spec === null || !('aggs' in spec) || !Array.isArray(spec.aggs)) return [];
  return spec.aggs.flatMap((a: unknown) => (typeof a === 'object' && a !== null && 'agg' in a && typeof a.agg === 'string' ? [a.agg] : []));
}

/** The parsed condition of a filter task that gpuflow_dask evaluates, or null (main/dask/graph.ts sends it). */
export function daskFilterTree(params: Record<string, unknown>): Node | null {
  if (typeof params.expr !== 'string') return null;
  try {
    const root = parseExpr(params.expr);
    return daskCondition(root) ? root : null;
  } catch {
    return null;
  }
}

/** An expression python/gpuflow_dask/assign_expr.py evaluates: arithmetic of columns and numbers. */
function daskArithmetic(n: Node): boolean {
  if (n.kind === 'col' || n.kind === 'num') return true;
  if (n.kind === 'neg') return daskArithmetic(n.arg);
  if (n.kind === 'arith') return daskArithmetic(n.a) && daskArithmetic(n.b);
  return false;
}

/** The parsed expressions (column -> tree) of an assign task that gpuflow_dask evaluates, or null (main/dask/graph.ts sends them). */
export function daskAssignTrees(params: Record<string, unknown>): Record<string, Node> | null {
  const exprs = params.exprs;
  if (typeof exprs !== 'object' || exprs === null || Array.isArray(exprs)) return null;
  const trees: Record<string, Node> = {};
  for (const [column, expr] of Object.entries(exprs)) {
    if (typeof expr !== 'string') return null;
    try {
      const root = parseExpr(expr);
      if (!daskArithmetic(root)) return null;
      trees[column] = root;
    } catch {
      return null;
    }
  }
  return trees;
}

/**
 * A condition python/gpuflow_dask/filter_expr.py evaluates: comparisons of arithmetic, strings and
 * booleans, `in` lists and `is [not] null` on a column, under and / or / not.
 */
function daskCondition(n: Node): boolean {
  const operand = (o: Node): boolean => daskArithmetic(o) || o.kind === 'str' || o.kind === 'bool';
  if (n.kind === 'cmp') return operand(n.a) && operand(n.b);
  if (n.kind === 'in' || n.kind === 'isnull') return n.arg.kind === 'col';
  if (n.kind === 'not') return daskCondition(n.arg);
  if (n.kind === 'logic') return daskCondition(n.a) && daskCondition(n.b);
  return false;
}

/** Why gpuflow_dask cannot run df task params of op `op` beyond the op itself, or null. */
function dfParamsRefusal(op: string, params: Record<string, unknown>): string | null {
  if (op === 'filter' && daskFilterTree(params) === null) return `the filter '${String(params.expr)}' (only comparisons of arithmetic, strings and booleans, in lists and is null on a column, joined by and / or / not)`;
  if (op === 'assign' && daskAssignTrees(params) === null) {
    return `the assign expression '${Object.values(typeof params.exprs === 'object' && params.exprs !== null ? params.exprs : {}).map(String).join("', '")}' (only a column, a number, or + - * / % of numeric columns and numbers)`;
  }
  return laterParamRefusal(op, params);
}

/** Params the local kernels took after the bridge's port of the op: refused here, not ignored there (a silent wrong answer). */
function laterParamRefusal(op: string, params: Record<string, unknown>): string | null {
  if (op === 'drop-duplicates' && params.keep === 'none') return "drop_duplicates with keep='none' (pandas' keep=False)";
  if (op.startsWith('value-counts') && (params.dropna === false || params.normalize === true)) return 'value_counts with normalize or dropna=False';
  const spec = params.spec;
  if (op.startsWith('groupby') && typeof spec === 'object' && spec !== null && 'dropna' in spec && spec.dropna === false) return 'groupby with dropna=False';
  if (op === 'rolling' && params.windowMs !== undefined) return 'a time-based rolling window';
  if ((op === 'resample-bin' || op === 'resample-fill') && params.calendar !== undefined) return `resample by the calendar period '${String(params.calendar)}'`;
  return null;
}

/**
 * What python/gpuflow_dask (encode.py, program.py) lacks of the addon's programs: bool and integer
 * programs, the comparisons and programs sized at run time, which came later (issue 24); refused here.
 */
function bridgeProgramGap(p: ChunkProgram): string | null {
  if (p.sizedBy !== undefined) return 'a data-dependent length (a boolean-mask selection)';
  return null;
}

/** The stated reason task `t` cannot run on Dask (supported.json reasons), where there is one. */
function reasonOf(t: TaskDef): string | undefined {
  const s = t.spec;
  const key = s.kind === 'trial' ? 'trial' : s.kind === 'df' || s.kind === 'array-op' ? s.op : undefined;
  return key !== undefined && Object.prototype.hasOwnProperty.call(SUPPORTED.reasons, key) ? SUPPORTED.reasons[key] : undefined;
}

/** Why gpuflow_dask cannot run task `t`, or null. */
export function daskRefusal(t: TaskDef): string | null {
  const s = t.spec;
  if (!SUPPORTED.kinds.includes(s.kind)) return s.kind === 'trial' ? `the tuning trial '${s.op}'` : `a '${s.kind}' task`;
  if (s.kind === 'program') {
    // Every chunk program runs: through the flat code where it suits the native interpreter, else
    // from its tree (python/gpuflow_dask/expr_program.py, a port of the js interpreter the local
    // engine runs comparisons and where on); integer ones converted as the local engine does
    // (int_program.py). A reduction's chunk step runs as a flat program of at most LIMITS.dims axes.
    const p = s.program;
    const gap = bridgeProgramGap(p);
    if (gap !== null) return `a chunk program of ${gap}`;
    return p.reduce && p.shape.length > LIMITS.dims ? `a chunk program reducing ${p.shape.length} dimensions (at most ${LIMITS.dims})` : null;
  }
  if (s.kind === 'array-op' && !SUPPORTED['array-op'].includes(s.op)) return `the array op '${s.op}'`;
  if (s.kind === 'df') {
    if (!SUPPORTED.df.includes(s.op)) return `the dataframe op '${s.op}'`;
    const agg = aggsOf(s.params).find((a) => SUPPORTED.refusedAggs.includes(a));
    if (agg !== undefined) return `the groupby aggregate '${agg}'`;
    return dfParamsRefusal(s.op, s.params);
  }
  return null;
}

/** The refusal of the first task of `graph` the Dask target cannot run, or null. */
export function firstRefusal(graph: TaskGraph): DaskUnsupportedError | null {
  for (const t of graph.tasks.values()) {
    const why = daskRefusal(t);
    if (why !== null) return new DaskUnsupportedError(t.node, t.op, why, reasonOf(t));
  }
  return null;
}
