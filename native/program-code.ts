/**
 * Encodes a ChunkProgram (common/arrays.ts) as the flat Float64Array the addon decodes
 * (native/src/program.h). Broadcasts and regions are folded here: every leaf becomes an offset
 * plus one coefficient per output axis, so its flat index at output coordinate c is
 * `off + sum(c[a] * coef[a])`. The C++ side re-checks every field (bounds included).
 *
 * Layout: version, dtype (0 f64, 1 f32; a bool or integer program computes as f64, chunk-call.ts
 * casts its output), ndim, shape..., reduce op, reduce axis (-1 all),
 * index offset, index coefficients..., instruction count, then instructions in postfix order:
 *   1 random: dist (0 normal, 1 uniform), seed, a, b, off, coef...
 *   2 arange: start, step, off, coef...     3 fill: value     4 input: dep, off, coef...
 *   5 unary: op     6 binary: op     7 binary with a constant right operand: op, value
 *   8 clip: lo, hi
 * A binary op whose right operand is a fill keeps the constant unrounded, as the js reference
 * applies it to float32 buffers.
 */
import type { BinaryOp, ChunkProgram, Expr, Region, ReduceOp, UnaryOp } from '../common/arrays';
import { broadcastProblem, broadcastTarget, PARTIAL_FIELDS, sizeOf, stridesOf } from '../common/arrays';

const UNARY: UnaryOp[] = ['neg', 'abs', 'exp', 'log', 'sqrt', 'sin', 'cos', 'tanh', 'square', 'round', 'isnan', 'isfinite', 'floor', 'ceil'];
const BINARY: BinaryOp[] = ['add', 'sub', 'mul', 'div', 'pow', 'min', 'max', 'eq', 'ne', 'lt', 'le', 'gt', 'ge'];
const REDUCE: (ReduceOp | 'none')[] = ['none', 'sum', 'mean', 'var', 'std', 'min', 'max', 'argmin', 'argmax', 'prod', 'nanprod', 'nanmin', 'nanmax', 'nanmean'];
export { PARTIAL_FIELDS } from '../common/arrays';

export const LIMITS = { dims: 8, instructions: 48, leaves: 16, stack: 16 };

class Unsupported extends Error {}

/** What the loaded addon can do beyond the base program format. */
export interface NativeFeatures {
  /**
   * Leaf coefficients may be negative (a slice with a negative step walks a leaf backwards).
   * Addons built before native/src/program.cc accepted them report nothing, and such programs
   * run on the js backend instead.
   */
  negativeStrides?: boolean;
}

/**
 * Verdicts per program object, for each value of `negativeStrides`: a GPU worker asks twice a task
 * (choosing the backend, then encoding) about the same parsed program, which is never mutated.
 */
const verdicts = new WeakMap<ChunkProgram, [string | null | undefined, string | null | undefined]>();

/** Why the addon cannot run this program, or null when it can. */
export function unsupportedReason(program: ChunkProgram, features: NativeFeatures = {}): string | null {
  const slot = features.negativeStrides ? 1 : 0;
  let v = verdicts.get(program);
  if (v?.[slot] !== undefined) return v[slot];
  if (!v) verdicts.set(program, (v = [undefined, undefined]));
  return (v[slot] = checkProgram(program, features));
}

function checkProgram(program: ChunkProgram, features: NativeFeatures): string | null {
  // An int64 block read as it is (a slice, a copy): js copies it exactly, float64 would round
  // values beyond 2**53 (other int64 programs compute in float64 on every backend).
  if (program.dtype === 'int64' && program.expr.kind === 'leaf' && program.expr.leaf.kind === 'input') return 'an int64 copy (exact on js)';
  if (program.shape.length > LIMITS.dims) return `more than ${LIMITS.dims} dimensions`;
  if (program.reduce && program.reduce.axis !== null && program.shape.length === 0) return 'axis reduction of a 0-d program';
  let instructions = 0;
  let leaves = 0;
  let negative = false;
  const depth = (e: Expr): number => {
    instructions++;
    switch (e.kind) {
      case 'leaf':
        if (e.leaf.kind !== 'fill') leaves++;
        if (e.leaf.kind !== 'fill') {
          const { step, count } = e.leaf.region;
          if (count.length > LIMITS.dims) throw new Error('dims');
          if (!features.negativeStrides && step.some((s) => s < 0)) negative = true;
        }
        return 1;
      case 'unary':
      case 'clip':
      case 'broadcast':
        if (e.kind === 'broadcast') instructions--;
        return depth(e.arg);
      case 'where':
        throw new Unsupported('where');
      case 'binary':
        if (!BINARY.includes(e.op)) throw new Unsupported(`binary op ${e.op}`);
        if (e.b.kind === 'leaf' && e.b.leaf.kind === 'fill') return depth(e.a);
        return Math.max(depth(e.a), 1 + depth(e.b));
    }
  };
  let d: number;
  try {
    d = depth(program.expr);
  } catch (err) {
    // `where` is not in the addon's instruction set yet: such programs run on js.
    if (err instanceof Unsupported) return err.message;
    return `more than ${LIMITS.dims} dimensions`;
  }
  if (negative) return 'a negative slice step (this addon build has no negative strides)';
  if (d > LIMITS.stack) return `expression deeper than ${LIMITS.stack}`;
  if (instructions > LIMITS.instructions) return `more than ${LIMITS.instructions} instructions`;
  if (leaves > LIMITS.leaves) return `more than ${LIMITS.leaves} leaves`;
  return null;
}

/**
 * Encodes `program`; `inputShapes[i]` is the shape of dependency i (input leaves index into it).
 * Throws an Error naming the inconsistent part.
 */
export function encodeProgram(program: ChunkProgram, inputShapes: (number[] | null)[]): Float64Array {
  // The format expresses negative strides; whether the loaded addon runs them is the backend's check.
  const why = unsupportedReason(program, { negativeStrides: true });
  if (why) throw new Error(`native program: unsupported (${why})`);
  // A 0-d program runs as shape [1]: its leaves read flat index 0 + their region's start.
  const shape = program.shape.length === 0 ? [1] : program.shape;
  const nd = shape.length;
  const out: number[] = [1, program.dtype === 'float32' ? 1 : 0, nd, ...shape];

  const red = program.reduce;
  const icoef = new Array<number>(nd).fill(0);
  let ioff = 0;
  if (red && (red.op === 'argmin' || red.op === 'argmax')) {
    const offset = red.offset ?? program.shape.map(() => 0);
    if (red.axis !== null) {
      ioff = offset[red.axis] ?? 0;
      icoef[red.axis] = 1;
    } else if (program.shape.length > 0) {
      const g = red.globalShape ?? program.shape;
      if (g.length !== nd || offset.length !== nd) throw new Error(`native program: reduce.offset/globalShape have ${offset.length}/${g.length} axes, program has ${nd}`);
      const gs = stridesOf(g);
      for (let d = 0; d < nd; d++) {
        ioff += offset[d] * gs[d];
        icoef[d] = gs[d];
      }
    }
  }
  out.push(red ? REDUCE.indexOf(red.op) : 0, red && red.axis !== null ? red.axis : -1, ioff, ...icoef);

  const code: number[] = [];
  let count = 0;
  // `map[d]`: the output axis that axis d of the current evaluation space follows (-1: fixed at 0).
  const leafCoefs = (what: string, leafShape: number[], region: Region, evalShape: number[], map: number[]): number[] => {
    if (region.count.length !== evalShape.length || region.count.some((c, d) => c !== evalShape[d]))
      throw new Error(`native program: ${what} region count ${region.count.join('x')} does not match block ${evalShape.join('x')}`);
    if (region.start.length !== leafShape.length || region.step.length !== leafShape.length || leafShape.length !== evalShape.length)
      throw new Error(`native program: ${what} region has ${region.start.length} axes, its array ${leafShape.length}`);
    const st = stridesOf(leafShape);
    let off = 0;
    const coef = new Array<number>(nd).fill(0);
    for (let d = 0; d < leafShape.length; d++) {
      const last = region.start[d] + (region.count[d] - 1) * region.step[d];
      if (region.count[d] > 0 && (Math.min(region.start[d], last) < 0 || Math.max(region.start[d], last) >= leafShape[d]))
        throw new Error(`native program: ${what} region leaves its array on axis ${d}`);
      off += region.start[d] * st[d];
      if (map[d] >= 0) coef[map[d]] += region.step[d] * st[d];
    }
    return [off, ...coef];
  };
  const emit = (e: Expr, evalShape: number[], map: number[]): void => {
    switch (e.kind) {
      case 'leaf': {
        const l = e.leaf;
        count++;
        if (l.kind === 'fill') code.push(3, l.value);
        else if (l.kind === 'random') code.push(1, l.dist === 'normal' ? 0 : 1, l.seed, l.a, l.b, ...leafCoefs('random leaf', l.shape, l.region, evalShape, map));
        else if (l.kind === 'arange') code.push(2, l.start, l.step, ...leafCoefs('arange leaf', l.shape, l.region, evalShape, map));
        else {
          const s = inputShapes[l.dep];
          if (!s) throw new Error(`native program: input leaf reads dependency ${l.dep}, which is not an array`);
          code.push(4, l.dep, ...leafCoefs(`input leaf (dep ${l.dep})`, s, l.region, evalShape, map));
        }
        return;
      }
      case 'unary':
        emit(e.arg, evalShape, map);
        count++;
        code.push(5, UNARY.indexOf(e.op));
        return;
      case 'clip':
        emit(e.arg, evalShape, map);
        count++;
        code.push(8, e.lo, e.hi);
        return;
      case 'binary':
        emit(e.a, evalShape, map);
        count++;
        if (e.b.kind === 'leaf' && e.b.leaf.kind === 'fill') code.push(7, BINARY.indexOf(e.op), e.b.leaf.value);
        else {
          emit(e.b, evalShape, map);
          code.push(6, BINARY.indexOf(e.op));
        }
        return;
      case 'where':
        throw new Error('native program: where is not in the instruction set');
      case 'broadcast': {
        const problem = broadcastProblem(e, evalShape);
        if (problem) throw new Error(`native program: ${problem}`);
        const inner = e.from.map((f, d) => {
          const o = broadcastTarget(e, d, evalShape.length);
          return f === 1 || o < 0 ? -1 : map[o];
        });
        emit(e.arg, e.from, inner);
        return;
      }
    }
  };
  const top = program.shape.length === 0 ? [] : program.shape;
  emit(program.expr, top, top.map((_, d) => d));
  out.push(count, ...code);
  return Float64Array.from(out);
}

/** The partial's shape: the program's shape without the reduced axis (scalar for all axes). */
export function partialShape(program: ChunkProgram): number[] {
  const r = program.reduce;
  if (!r || r.axis === null) return [];
  return program.shape.filter((_, d) => d !== r.axis);
}

/** Elements the addon writes for this program: the array, or the partial's fields back to back. */
export function outputLength(program: ChunkProgram): number {
  if (!program.reduce) return sizeOf(program.shape);
  return PARTIAL_FIELDS[program.reduce.op].length * sizeOf(partialShape(program));
}
