/**
 * Arrays of data-dependent length (issue 24): a boolean-mask selection `x[mask]` keeps as many
 * values as the mask holds True, known only when its tasks run. As Dask marks such chunks NaN,
 * the compiler marks them UNKNOWN (-1) in a LazyArray's shape and chunks: all of a 1-D x[mask],
 * or one axis of an N-D x[..., m] (a 1-D mask along that axis).
 *
 * What takes one: elementwise ops with numbers (scalar_op, unary, clip, astype), reductions over
 * all of it or along one axis (sum, mean, var, min, ...: their partials carry their own counts)
 * and results. Their block
 * programs are emitted with `sizedBy` naming the dependency whose length they take (toEmitted);
 * the worker sets the length before running them (worker/execute.ts). Everything else needs the
 * sizes to plan its tasks and is refused naming the input (unknownRefusal), as Dask refuses.
 */
import type { ChunkProgram, Expr } from '../../../common/arrays';
import type { TaskDef } from '../../../common/tasks';

/** A length known only at run time. */
export const UNKNOWN = -1;

export function hasUnknown(shape: number[]): boolean {
  return shape.includes(UNKNOWN);
}

/** Why an op that needs known sizes cannot take this input, or null when its sizes are known. */
export function unknownRefusal(shape: number[]): string | null {
  if (!hasUnknown(shape)) return null;
  return "has unknown chunk sizes (a boolean-mask selection: its length is known only when it runs; Dask: 'unknown chunk sizes, call compute_chunk_sizes'); this op needs known sizes: reduce it, or use it in scalar_op, unary, clip, astype or as a result";
}

/** The input leaf of `e` whose region has an unknown count: the dependency that sizes the program. */
function sizingDep(e: Expr): number | null {
  switch (e.kind) {
    case 'leaf':
      return e.leaf.kind === 'input' && hasUnknown(e.leaf.region.count) ? e.leaf.dep : null;
    case 'binary':
      return sizingDep(e.a) ?? sizingDep(e.b);
    case 'where':
      return sizingDep(e.cond) ?? sizingDep(e.a) ?? sizingDep(e.b);
    // A broadcast from an unknown length is astype's identity broadcast; others read known shapes.
    case 'broadcast':
      return hasUnknown(e.from) ? sizingDep(e.arg) : null;
    default:
      return sizingDep(e.arg);
  }
}

/** `e` with every unknown region count as 0 (the placeholder the worker replaces). */
function zeroCounts(e: Expr): Expr {
  switch (e.kind) {
    case 'leaf':
      return e.leaf.kind === 'input' ? { kind: 'leaf', leaf: { ...e.leaf, region: { ...e.leaf.region, count: e.leaf.region.count.map((c) => Math.max(0, c)) } } } : e;
    case 'binary':
      return { ...e, a: zeroCounts(e.a), b: zeroCounts(e.b) };
    case 'where':
      return { ...e, cond: zeroCounts(e.cond), a: zeroCounts(e.a), b: zeroCounts(e.b) };
    case 'broadcast':
      return hasUnknown(e.from) ? { ...e, from: e.from.map((s) => Math.max(0, s)), arg: zeroCounts(e.arg) } : e;
    default:
      return { ...e, arg: zeroCounts(e.arg) };
  }
}

function sizedProgram(p: ChunkProgram): ChunkProgram {
  const dep = sizingDep(p.expr);
  if (dep === null) throw new Error('internal: a program of unknown length reads no input of unknown length');
  const reduce = p.reduce ? { ...p.reduce, offset: p.reduce.offset?.map(() => 0), globalShape: p.reduce.globalShape?.map(() => 0) } : undefined;
  return { ...p, shape: p.shape.map((s) => Math.max(0, s)), sizedBy: dep, expr: zeroCounts(p.expr), ...(reduce ? { reduce } : {}) };
}

/**
 * A task as the graph holds it: a program of unknown length sized by its input (see above), and
 * byte estimates that are never negative (an unknown block counts as empty; the scheduler's
 * estimates only order work).
 */
export function toEmitted<T extends Pick<TaskDef, 'spec' | 'outBytes' | 'workBytes'>>(t: T): T {
  // A combine of partials along a known axis of an axis selection also sizes its bytes from -1.
  if (t.outBytes < 0 || t.workBytes < 0) Object.assign(t, { outBytes: Math.max(0, t.outBytes), workBytes: Math.max(0, t.workBytes) });
  if (t.spec.kind !== 'program' || !hasUnknown(t.spec.program.shape)) return t;
  return Object.assign(t, { spec: { kind: 'program' as const, program: sizedProgram(t.spec.program) } });
}
