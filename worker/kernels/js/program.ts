/**
 * The js interpreter of ChunkProgram (common/arrays.ts): the reference every other backend is
 * tested against. Clear first: each expression node evaluates into a buffer of the block's shape
 * (float32 programs use Float32Array buffers, so every operation rounds to float32 as NumPy does),
 * then the reduction's chunk step folds the buffer into a Partial.
 */
import type { ChunkProgram, ChunkValue, Expr, Leaf, NDArray, Region } from '../../../common/arrays';
import { broadcastProblem, broadcastTarget, castComputed, sizeOf } from '../../../common/arrays';
import { PhiloxStream } from '../../../common/philox';
import { chunkReduce } from './reduce';

type Buf = Float64Array | Float32Array;

/** Calls `visit(outIndex, globalFlatIndex)` for each element of `region` read from an array of `shape`, in C order. */
export function forEachRegionIndex(shape: number[], region: Region, visit: (k: number, flat: number) => void): void {
  const nd = shape.length;
  if (nd === 0) {
    visit(0, 0);
    return;
  }
  const strides = new Array<number>(nd);
  let s = 1;
  for (let d = nd - 1; d >= 0; d--) {
    strides[d] = s;
    s *= shape[d];
  }
  const total = sizeOf(region.count);
  if (total === 0) return;
  const last = nd - 1;
  const innerStep = region.step[last] * strides[last];
  const innerCount = region.count[last];
  const idx = new Array<number>(nd).fill(0);
  let k = 0;
  for (;;) {
    let base = 0;
    for (let d = 0; d < last; d++) base += (region.start[d] + idx[d] * region.step[d]) * strides[d];
    let flat = base + region.start[last] * strides[last];
    for (let i = 0; i < innerCount; i++, flat += innerStep) visit(k++, flat);
    let d = last - 1;
    while (d >= 0) {
      idx[d]++;
      if (idx[d] < region.count[d]) break;
      idx[d] = 0;
      d--;
    }
    if (d < 0) return;
  }
}

function checkRegion(region: Region, shape: number[], what: string): void {
  if (region.count.length !== shape.length) throw new Error(`${what}: region has ${region.count.length} axes, block has ${shape.length}`);
  for (let d = 0; d < shape.length; d++) {
    if (region.count[d] !== shape[d]) throw new Error(`${what}: region count ${region.count.join('x')} does not match block ${shape.join('x')}`);
  }
}

function evalLeaf(leaf: Leaf, shape: number[], make: (n: number) => Buf, inputs: ChunkValue[]): Buf {
  const n = sizeOf(shape);
  const out = make(n);
  switch (leaf.kind) {
    case 'fill':
      out.fill(leaf.value);
      return out;
    case 'random': {
      checkRegion(leaf.region, shape, 'random leaf');
      const stream = new PhiloxStream(leaf.seed, leaf.dist, leaf.a, leaf.b, out instanceof Float32Array);
      forEachRegionIndex(leaf.shape, leaf.region, (k, flat) => {
        out[k] = stream.at(flat);
      });
      return out;
    }
    case 'arange': {
      checkRegion(leaf.region, shape, 'arange leaf');
      forEachRegionIndex(leaf.shape, leaf.region, (k, flat) => {
        out[k] = leaf.start + leaf.step * flat;
      });
      return out;
    }
    case 'input': {
      checkRegion(leaf.region, shape, 'input leaf');
      const v = inputs[leaf.dep];
      if (!v || v.kind !== 'array') throw new Error(`input leaf: dependency ${leaf.dep} is not an array`);
      const src = v.array.data;
      if (src instanceof BigInt64Array) {
        forEachRegionIndex(v.array.shape, leaf.region, (k, flat) => {
          out[k] = Number(src[flat]);
        });
      } else {
        forEachRegionIndex(v.array.shape, leaf.region, (k, flat) => {
          out[k] = src[flat];
        });
      }
      return out;
    }
  }
}

const UNARY: Record<string, (x: number) => number> = {
  neg: (x) => -x,
  abs: Math.abs,
  exp: Math.exp,
  log: Math.log,
  sqrt: Math.sqrt,
  sin: Math.sin,
  cos: Math.cos,
  tanh: Math.tanh,
  square: (x) => x * x,
  round: roundHalfEven,
  // NumPy's bool as 1 / 0, as the comparisons give.
  isnan: (x) => (x !== x ? 1 : 0),
  isfinite: (x) => (Number.isFinite(x) ? 1 : 0),
  floor: Math.floor,
  ceil: Math.ceil,
};

/** numpy.round to an integer: the nearest one, halves to the even neighbour (2.5 -> 2, -1.5 -> -2). */
export function roundHalfEven(x: number): number {
  const r = Math.round(x); // halves go up (toward +infinity)
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

const BINARY: Record<string, (a: number, b: number) => number> = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  pow: Math.pow,
  // NumPy's minimum/maximum propagate NaN.
  min: (a, b) => (a !== a || b !== b ? NaN : Math.min(a, b)),
  max: (a, b) => (a !== a || b !== b ? NaN : Math.max(a, b)),
  eq: (a, b) => (a === b ? 1 : 0),
  ne: (a, b) => (a !== b ? 1 : 0),
  lt: (a, b) => (a < b ? 1 : 0),
  le: (a, b) => (a <= b ? 1 : 0),
  gt: (a, b) => (a > b ? 1 : 0),
  ge: (a, b) => (a >= b ? 1 : 0),
};

/**
 * Expands `src` of shape `e.from` to `to`: NumPy broadcasting, or the explicit axis map of
 * `e.axes` (common/arrays.ts: dropped index axes, new axes).
 */
function broadcastTo(src: Buf, e: { from: number[]; axes?: number[] }, to: number[], make: (n: number) => Buf): Buf {
  const problem = broadcastProblem(e, to);
  if (problem) throw new Error(`broadcast: ${problem}`);
  const nd = to.length;
  // Element stride of the source along each program axis (0: repeated).
  const srcStrides = new Array<number>(nd).fill(0);
  let s = 1;
  for (let d = e.from.length - 1; d >= 0; d--) {
    const o = broadcastTarget(e, d, nd);
    if (o >= 0 && e.from[d] !== 1) srcStrides[o] += s;
    s *= e.from[d];
  }
  const out = make(sizeOf(to));
  const idx = new Array<number>(nd).fill(0);
  for (let k = 0; k < out.length; k++) {
    let off = 0;
    for (let d = 0; d < nd; d++) off += idx[d] * srcStrides[d];
    out[k] = src[off];
    for (let d = nd - 1; d >= 0; d--) {
      if (++idx[d] < to[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

function evalExpr(e: Expr, shape: number[], make: (n: number) => Buf, inputs: ChunkValue[]): Buf {
  switch (e.kind) {
    case 'leaf':
      return evalLeaf(e.leaf, shape, make, inputs);
    case 'unary': {
      const x = evalExpr(e.arg, shape, make, inputs);
      const f = UNARY[e.op];
      if (!f) throw new Error(`unknown unary op '${e.op}'`);
      for (let i = 0; i < x.length; i++) x[i] = f(x[i]);
      return x;
    }
    case 'clip': {
      const x = evalExpr(e.arg, shape, make, inputs);
      for (let i = 0; i < x.length; i++) x[i] = x[i] !== x[i] ? x[i] : Math.min(Math.max(x[i], e.lo), e.hi);
      return x;
    }
    case 'binary': {
      const a = evalExpr(e.a, shape, make, inputs);
      const f = BINARY[e.op];
      if (!f) throw new Error(`unknown binary op '${e.op}'`);
      if (e.b.kind === 'leaf' && e.b.leaf.kind === 'fill') {
        const v = e.b.leaf.value;
        if (e.op === 'add') for (let i = 0; i < a.length; i++) a[i] += v;
        else for (let i = 0; i < a.length; i++) a[i] = f(a[i], v);
        return a;
      }
      const b = evalExpr(e.b, shape, make, inputs);
      for (let i = 0; i < a.length; i++) a[i] = f(a[i], b[i]);
      return a;
    }
    case 'where': {
      const c = evalExpr(e.cond, shape, make, inputs);
      const a = evalExpr(e.a, shape, make, inputs);
      const b = evalExpr(e.b, shape, make, inputs);
      for (let i = 0; i < a.length; i++) if (c[i] === 0) a[i] = b[i];
      return a;
    }
    case 'broadcast': {
      const x = evalExpr(e.arg, e.from, make, inputs);
      return broadcastTo(x, e, shape, make);
    }
  }
}

/**
 * An int64 program that only reads an int64 input (a block, a slice of one): gathered as BigInts,
 * exactly, where the float64 buffers of evalExpr would round values beyond 2**53.
 */
function exactInt64(program: ChunkProgram, inputs: ChunkValue[]): NDArray | null {
  const e = program.expr;
  if (program.dtype !== 'int64' || e.kind !== 'leaf' || e.leaf.kind !== 'input') return null;
  const v = inputs[e.leaf.dep];
  if (!v || v.kind !== 'array' || !(v.array.data instanceof BigInt64Array)) return null;
  checkRegion(e.leaf.region, program.shape, 'input leaf');
  const src = v.array.data;
  const out = new BigInt64Array(sizeOf(program.shape));
  forEachRegionIndex(v.array.shape, e.leaf.region, (k, flat) => {
    out[k] = src[flat];
  });
  return { dtype: 'int64', shape: program.shape, data: out };
}

/** Evaluates the elementwise part of a program into a new array. */
export function evaluateElementwise(program: ChunkProgram, inputs: ChunkValue[]): NDArray {
  const exact = exactInt64(program, inputs);
  if (exact) return exact;
  const make = program.dtype === 'float32' ? (n: number) => new Float32Array(n) : (n: number) => new Float64Array(n);
  const data = evalExpr(program.expr, program.shape, make, inputs);
  return { dtype: program.dtype, shape: program.shape, data: castComputed(program.dtype, data) };
}

/** Runs a whole program: the elementwise part, then the reduction's chunk step if any. */
export function runProgram(program: ChunkProgram, inputs: ChunkValue[]): ChunkValue {
  const array = evaluateElementwise(program, inputs);
  if (!program.reduce) return { kind: 'array', array };
  return { kind: 'partial', partial: chunkReduce(array, program.reduce) };
}
