/**
 * Lowering lazy arrays to tasks. Elementwise work and slices only compose block programs (no
 * tasks); `materialize` emits one program task per block; `reduce` folds the per-chunk part of a
 * reduction into each block's program and combines the partials in a tree of fan-in
 * `splitEvery`, as dask.array's reductions do.
 */
import type { BinaryOp, DType, Expr, ReduceOp } from '../../../common/arrays';
import { bytesPerElement, sizeOf } from '../../../common/arrays';
import { reduceResultType } from '../../../common/dtype-rules';
import type { TaskPlace, TaskSpec } from '../../../common/tasks';
import type { AxisSlice, NormalizedIndex } from '../ops/slice-syntax';
import type { BuildContext, LazyArray, LazyScalar } from '../ops/types';
import { runToEnd, type Steps } from '../slices';
import { blockIndices, blockOffset, blockShape, eachBlockIndex, fullRegion, gridShape, sharedBlockShapes } from './chunks';
import { restrictExpr, shiftDeps } from './restrict';
import { coarsenForGpus } from './coarsen';

/** A lazy array whose blocks are the outputs of tasks `keys` (C order over the block grid). */
export function fromKeys(shape: number[], chunks: number[][], dtype: DType, keys: string[], opName: string, nodes: string[]): LazyArray {
  const grid = gridShape(chunks);
  return {
    kind: 'array',
    shape,
    chunks,
    dtype,
    opName,
    nodes,
    block(idx) {
      let flat = 0;
      for (let d = 0; d < grid.length; d++) flat = flat * grid[d] + idx[d];
      return { expr: { kind: 'leaf', leaf: { kind: 'input', dep: 0, region: fullRegion(blockShape(chunks, idx)) } }, deps: [keys[flat]] };
    },
  };
}

/** True when the array's blocks are already task outputs read whole (nothing left to fuse). */
function isMaterialized(a: LazyArray): boolean {
  const idx = a.chunks.map(() => 0);
  const b = a.block(idx);
  return b.deps.length === 1 && b.expr.kind === 'leaf' && b.expr.leaf.kind === 'input' && b.expr.leaf.region.step.every((s) => s === 1) && b.expr.leaf.region.start.every((s) => s === 0);
}

/** Emits one task per block; returns the array read back from those tasks. */
/** `place`: owner-computes placement of each block's task (TaskDef.place), e.g. matmul's operands. */
export function materialize(a: LazyArray, ctx: BuildContext, name = 'block', place?: (idx: number[]) => TaskPlace): LazyArray {
  return runToEnd(materializeSteps(a, ctx, name, place));
}

/** `materialize`, yielding after each task (main/engine/slices.ts: big grids must not stall the loop). */
export function* materializeSteps(a: LazyArray, ctx: BuildContext, name = 'block', place?: (idx: number[]) => TaskPlace): Steps<LazyArray> {
  if (isMaterialized(a)) return a;
  const keys: string[] = [];
  const shapeOf = sharedBlockShapes(a.chunks);
  for (const idx of eachBlockIndex(a.chunks)) {
    yield;
    const shape = shapeOf(idx);
    const { expr, deps } = a.block(idx);
    const key = ctx.key(name, idx);
    const bytes = sizeOf(shape) * bytesPerElement(a.dtype);
    ctx.emit({ key, deps, spec: { kind: 'program', program: { dtype: a.dtype, shape, expr } }, resource: ctx.arrayResource, op: a.opName, outBytes: bytes, workBytes: bytes, ...(place ? { place: place(idx) } : {}) });
    keys.push(key);
  }
  return fromKeys(a.shape, a.chunks, a.dtype, keys, ctx.nodeId, [ctx.nodeId]);
}

/**
 * `x` ready to be fused into a program of `dtype`: materialised first when that changes the
 * precision its chain computes in (a program computes every op in its output dtype, NumPy each op
 * in its operands'), so float32 work is never redone in float64 or the reverse.
 */
export function settle(x: LazyArray, dtype: DType, ctx: BuildContext, name: string): LazyArray {
  const f32 = (d: DType) => d === 'float32';
  return f32(x.dtype) !== f32(dtype) ? materialize(x, ctx, name) : x;
}

/** Elementwise map of one array. */
export function mapBlocks(a: LazyArray, f: (e: Expr) => Expr, opName: string, nodeId: string, dtype: DType = a.dtype): LazyArray {
  return {
    ...a,
    dtype,
    opName: `${a.opName}+${opName}`,
    nodes: [...a.nodes, nodeId],
    block(idx) {
      const b = a.block(idx);
      return { expr: f(b.expr), deps: b.deps };
    },
  };
}

/** Elementwise binary op of two arrays with the same shape and chunks. */
export function zipBlocks(a: LazyArray, b: LazyArray, op: BinaryOp, nodeId: string, dtype: DType): LazyArray {
  return {
    kind: 'array',
    shape: a.shape,
    chunks: a.chunks,
    dtype,
    opName: `${a.opName}+${op}`,
    nodes: [...a.nodes, ...b.nodes, nodeId],
    block(idx) {
      const x = a.block(idx);
      const y = b.block(idx);
      return { expr: { kind: 'binary', op, a: x.expr, b: shiftDeps(y.expr, x.deps.length) }, deps: [...x.deps, ...y.deps] };
    },
  };
}

/**
 * For one axis of chunk sizes `cs`, the output blocks of a strided selection: each is the part
 * of one source block it keeps (source block, local start, count), in output order, so a
 * negative step walks the source blocks from the last.
 */
function slicePieces(cs: number[], sl: AxisSlice): Array<{ src: number; localStart: number; count: number }> {
  const { start, step, count } = sl;
  const out: Array<{ src: number; localStart: number; count: number }> = [];
  if (count === 0) return out;
  const offs: number[] = [];
  let off = 0;
  for (const c of cs) {
    offs.push(off);
    off += c;
  }
  // Walk the kept indices block by block: k is the next output position not yet placed.
  let k = 0;
  let i = step > 0 ? 0 : cs.length - 1;
  while (k < count && i >= 0 && i < cs.length) {
    const lo = offs[i];
    const hi = lo + cs[i];
    const first = start + k * step;
    if (first >= lo && first < hi) {
      // Kept indices inside [lo, hi) from `first` on.
      const room = step > 0 ? Math.floor((hi - 1 - first) / step) + 1 : Math.floor((first - lo) / -step) + 1;
      const n = Math.min(room, count - k);
      out.push({ src: i, localStart: first - lo, count: n });
      k += n;
    }
    i += step > 0 ? 1 : -1;
  }
  return out;
}

/**
 * NumPy basic indexing (main/engine/ops/slice-syntax.ts): strided selections with any step sign,
 * integer indices that drop their axis and new axes. Output chunks follow the source's: each
 * output block is the part of one source block that the selection keeps, so no block reads two
 * sources, and the selection is pushed into the leaves (a slice of a generator generates only
 * what it keeps).
 */
export function sliceArray(a: LazyArray, index: NormalizedIndex, nodeId: string): LazyArray {
  const strided = stridedSlice(a, index.axes, nodeId);
  const identity = index.layout.length === a.shape.length && index.layout.every((d, o) => d === o);
  return identity ? strided : viewAxes(strided, index.layout);
}

function stridedSlice(a: LazyArray, sl: AxisSlice[], nodeId: string): LazyArray {
  const pieces = a.chunks.map((cs, d) => slicePieces(cs, sl[d]));
  const chunks = pieces.map((p) => (p.length ? p.map((x) => x.count) : [0]));
  const shape = chunks.map((c) => c.reduce((s, x) => s + x, 0));
  return {
    kind: 'array',
    shape,
    chunks,
    dtype: a.dtype,
    opName: `${a.opName}+slice`,
    nodes: [...a.nodes, nodeId],
    block(idx) {
      // An axis the slice keeps nothing of gives an empty array: nothing to read.
      if (pieces.some((p) => p.length === 0)) return { expr: { kind: 'leaf', leaf: { kind: 'fill', value: 0 } }, deps: [] };
      const srcIdx = idx.map((i, d) => pieces[d][i].src);
      const b = a.block(srcIdx);
      const local = {
        start: idx.map((i, d) => pieces[d][i].localStart),
        step: sl.map((s) => s.step),
        count: idx.map((i, d) => pieces[d][i].count),
      };
      return { expr: restrictExpr(b.expr, local), deps: b.deps };
    },
  };
}

/**
 * Re-indexes axes without moving data: output axis o shows source axis `layout[o]`, or is a new
 * axis of length 1 when -1; source axes no output axis shows must have length 1 (dropped). One
 * broadcast node with an axis map per block, which backends fold into their leaves' strides.
 */
export function viewAxes(a: LazyArray, layout: number[]): LazyArray {
  const shown = new Set(layout.filter((d) => d >= 0));
  a.shape.forEach((n, d) => {
    if (!shown.has(d) && n !== 1) throw new Error(`cannot drop axis ${d} of length ${n}`);
  });
  const chunks = layout.map((d) => (d < 0 ? [1] : a.chunks[d]));
  const axes = a.shape.map((_, d) => layout.indexOf(d));
  return {
    kind: 'array',
    shape: layout.map((d) => (d < 0 ? 1 : a.shape[d])),
    chunks,
    dtype: a.dtype,
    opName: a.opName,
    nodes: a.nodes,
    block(idx) {
      const srcIdx = a.shape.map((_, d) => (axes[d] < 0 ? 0 : idx[axes[d]]));
      const b = a.block(srcIdx);
      return { expr: { kind: 'broadcast', arg: b.expr, from: blockShape(a.chunks, srcIdx), axes }, deps: b.deps };
    },
  };
}

/**
 * The k-th of n contiguous shares (placement.ts) when the programs are the GPU workers' alone and
 * there are several (a share is never taken by a CPU worker, so with CPU-backed GPUs, which leave
 * the CPU workers their part, there are none).
 */
export function share(ctx: BuildContext, k: number, n: number): { place?: TaskPlace } {
  return ctx.gpuShare.gpus > 1 && ctx.arrayResource === 'gpu' ? { place: { share: [k, n] } } : {};
}

/**
 * The combine spec of a tree level: the last one finalizes to the reduction's NumPy dtype, named
 * only where it is not what a partial finalizes to by itself (float64; int64 for arg*), so the
 * specs and keys of float64 reductions stay as they were.
 */
function combineSpec(last: boolean, ddof: number | undefined, op: ReduceOp, dtype: DType): TaskSpec {
  const own = op === 'argmin' || op === 'argmax' ? 'int64' : 'float64';
  return { kind: 'combine', finalize: last, ddof, ...(last && dtype !== own ? { dtype } : {}) };
}

/**
 * `shares`: the partials were placed in contiguous shares (reduceAllSteps), `at[i]` the share of
 * partial i out of `of`: each combine goes where the middle one of the partials under it went.
 */
function* treeCombine(
  keys: string[],
  splitEvery: number,
  ctx: BuildContext,
  name: string,
  outBytes: number,
  ddof: number | undefined,
  finalOp: string,
  op: ReduceOp,
  dtype: DType,
  shares?: { at: number[]; of: number },
): Steps<string> {
  let level = keys;
  // The share of the partial each key of the level sits over.
  let at = shares?.at ?? [];
  let depth = 0;
  do {
    const next: string[] = [];
    const nextAt: number[] = [];
    const last = level.length <= splitEvery;
    for (let i = 0; i < level.length; i += splitEvery) {
      yield;
      const group = level.slice(i, i + splitEvery);
      const key = ctx.key(`${name}-combine${depth}`, [i / splitEvery]);
      // Partials made on GPUs are combined there, by the GPU that made most of them: a CPU worker
      // or another GPU would only fetch them.
      const mid = at[i + (group.length >> 1)];
      const place = shares ? share(ctx, mid, shares.of) : {};
      ctx.emit({ key, deps: group, spec: combineSpec(last, ddof, op, dtype), resource: ctx.arrayResource, op: last ? finalOp : 'combine', outBytes, workBytes: outBytes * group.length, ...place });
      next.push(key);
      nextAt.push(mid);
    }
    level = next;
    at = nextAt;
    depth++;
  } while (level.length > 1);
  return level[0];
}

/** Reduction over all axes: per-block chunk steps fused into the blocks' programs, then a combine tree. */
export function* reduceAllSteps(a0: LazyArray, op: ReduceOp, splitEvery: number, ctx: BuildContext, ddof?: number): Steps<LazyScalar> {
  const a = coarsenForGpus(a0, ctx.gpuShare);
  const partials: string[] = [];
  const blocks = a.chunks.reduce((n, c) => n * c.length, 1);
  const at: number[] = [];
  let b = -1;
  // Empty blocks add nothing, except that an empty array's sum / mean / var is its first block's
  // identity partial (NumPy: 0, NaN, prod 1); min, max and arg* of nothing have no identity.
  const identity = sizeOf(a.shape) === 0 && !['min', 'max', 'argmin', 'argmax'].includes(op);
  const shapeOf = sharedBlockShapes(a.chunks);
  const opName = `${a.opName}+${op}`;
  for (const idx of eachBlockIndex(a.chunks)) {
    yield;
    b++;
    const shape = shapeOf(idx);
    if (sizeOf(shape) === 0 && !(identity && partials.length === 0)) continue;
    const { expr, deps } = a.block(idx);
    const key = ctx.key(op, idx);
    ctx.emit({
      key,
      deps,
      spec: { kind: 'program', program: { dtype: a.dtype, shape, expr, reduce: { op, axis: null, ddof, offset: blockOffset(a.chunks, idx), globalShape: a.shape } } },
      resource: ctx.arrayResource,
      op: opName,
      outBytes: 24,
      workBytes: sizeOf(shape) * bytesPerElement(a.dtype),
      ...share(ctx, b, blocks),
    });
    partials.push(key);
    at.push(b);
  }
  if (partials.length === 0) ctx.fail('input', `cannot ${op} an empty array`);
  const dtype = reduceResultType(a.dtype, op);
  const key = yield* treeCombine(partials, splitEvery, ctx, op, 24, ddof, `${op}-final`, op, dtype, { at, of: blocks });
  return { kind: 'scalar', key, dtype };
}

/** Reduction along one axis: a combine tree per line of blocks along `axis`. */
export function* reduceAxisSteps(a: LazyArray, op: ReduceOp, axis: number, splitEvery: number, ctx: BuildContext, ddof?: number): Steps<LazyArray> {
  const dtype = reduceResultType(a.dtype, op);
  const grid = gridShape(a.chunks);
  const outChunks = a.chunks.filter((_, d) => d !== axis);
  const outKeys: string[] = [];
  const lines = blockIndices(outChunks);
  const shapeOf = sharedBlockShapes(a.chunks);
  const opName = `${a.opName}+${op}`;
  for (const outIdx of lines) {
    const partials: string[] = [];
    for (let i = 0; i < grid[axis]; i++) {
      yield;
      const idx = [...outIdx.slice(0, axis), i, ...outIdx.slice(axis)];
      const shape = shapeOf(idx);
      const { expr, deps } = a.block(idx);
      const key = ctx.key(op, idx);
      const outBytes = (sizeOf(shape) / Math.max(1, shape[axis])) * 8 * 3;
      ctx.emit({
        key,
        deps,
        spec: { kind: 'program', program: { dtype: a.dtype, shape, expr, reduce: { op, axis, ddof, offset: blockOffset(a.chunks, idx), globalShape: a.shape } } },
        resource: ctx.arrayResource,
        op: opName,
        outBytes,
        workBytes: sizeOf(shape) * bytesPerElement(a.dtype),
      });
      partials.push(key);
    }
    outKeys.push(yield* treeCombine(partials, splitEvery, ctx, `${op}${outIdx.length ? `[${outIdx.join(',')}]` : ''}`, 8 * sizeOf(blockShape(outChunks, outIdx)), ddof, `${op}-final`, op, dtype));
  }
  const shape = a.shape.filter((_, d) => d !== axis);
  return fromKeys(shape, outChunks, dtype, outKeys, ctx.nodeId, [ctx.nodeId]);
}
