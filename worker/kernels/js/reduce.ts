/**
 * Reductions as (chunk, combine, aggregate) triples, as dask.array.reductions does them: every
 * public reduction is one entry of REDUCTIONS, fed to one generic tree reduction by the compiler.
 * Partials are small typed records (common/arrays.ts `Partial`):
 *   sum {sum} · mean {sum, count} · var/std {count, mean, m2} · min/max/prod {value} · argmin/argmax {value, index}
 *   nanprod {value} · nanmin/nanmax {value, count} · nanmean {sum, count}: NaN skipped, count of the rest
 * var/std combine with Chan, Golub and LeVeque's pairwise update, so the tree gives the same
 * answer as one pass up to rounding. Sums use Neumaier's compensated summation; a sum of an
 * integer block also keeps its exact int64 sum (Partial.isum), as NumPy sums integers in int64;
 * a product of integers likewise keeps its exact int64 product there (wrapping as NumPy's).
 * Finalizing casts to the reduction's NumPy dtype (common/dtype-rules.ts).
 */
import type { DType, NDArray, NumericArray, Partial, ReduceOp } from '../../../common/arrays';
import { allocate, PARTIAL_FIELDS, sizeOf } from '../../../common/arrays';

export interface ReduceSpec {
  op: ReduceOp;
  axis: number | null;
  ddof?: number;
  offset?: number[];
  globalShape?: number[];
}


/** Shape of the partial: the block's shape without the reduced axis (scalar for axis null). */
function reducedShape(shape: number[], axis: number | null): number[] {
  return axis === null ? [] : shape.filter((_, d) => d !== axis);
}

function emptyPartial(op: ReduceOp, shape: number[]): Partial {
  const n = sizeOf(shape);
  const fields: Record<string, Float64Array> = {};
  for (const f of PARTIAL_FIELDS[op]) fields[f] = new Float64Array(n);
  // A product of nothing is 1 (NumPy's identity), as a sum of nothing is 0.
  if (op === 'prod' || op === 'nanprod') fields.value.fill(1);
  if (op === 'nanmin') fields.value.fill(Infinity);
  if (op === 'nanmax') fields.value.fill(-Infinity);
  return { op, shape, fields };
}

/**
 * Visits the reduction lanes of an array: for each output position `o`, the flat indices of the
 * elements that fold into it, as (first, stride, count).
 */
function lanes(shape: number[], axis: number | null, visit: (o: number, first: number, stride: number, count: number) => void): void {
  const n = sizeOf(shape);
  if (axis === null) {
    visit(0, 0, 1, n);
    return;
  }
  if (axis < 0 || axis >= shape.length) throw new Error(`reduction axis ${axis} out of range for ${shape.length}-d block`);
  let inner = 1;
  for (let d = axis + 1; d < shape.length; d++) inner *= shape[d];
  const len = shape[axis];
  // Counted, not n / (len * inner): an empty axis still has its lanes (each folds nothing).
  let outer = 1;
  for (let d = 0; d < axis; d++) outer *= shape[d];
  let o = 0;
  for (let a = 0; a < outer; a++) for (let b = 0; b < inner; b++) visit(o++, a * len * inner + b, inner, len);
}

/**
 * A Neumaier sum's value: s + c, except where s is an infinity or NaN, whose compensation term is
 * NaN (inf - inf) and would turn NumPy's sum([1, -inf]) = -inf into NaN.
 */
export function compensatedTotal(s: number, c: number): number {
  return Number.isFinite(s) ? s + c : s;
}

function toNumber(data: NDArray['data'], i: number): number {
  const v = data[i];
  return typeof v === 'bigint' ? Number(v) : v;
}

/** The chunk step: folds one block into a partial. */
export function chunkReduce(a: NDArray, spec: ReduceSpec): Partial {
  const shape = reducedShape(a.shape, spec.axis);
  const p = emptyPartial(spec.op, shape);
  const d = a.data;
  const f = p.fields;
  if (spec.op === 'sum' && (d instanceof Int32Array || d instanceof BigInt64Array || d instanceof Uint8Array)) {
    const isum = new BigInt64Array(sizeOf(shape));
    lanes(a.shape, spec.axis, (o, first, stride, count) => {
      isum[o] = exactSum(d, first, stride, count);
    });
    p.isum = isum;
  }
  if ((spec.op === 'prod' || spec.op === 'nanprod') && (d instanceof Int32Array || d instanceof BigInt64Array || d instanceof Uint8Array)) {
    const iprod = new BigInt64Array(sizeOf(shape));
    lanes(a.shape, spec.axis, (o, first, stride, count) => {
      let t = 1n;
      for (let k = 0, i = first; k < count; k++, i += stride) t = BigInt.asIntN(64, t * BigInt(d[i]));
      iprod[o] = t;
    });
    p.isum = iprod;
  }
  lanes(a.shape, spec.axis, (o, first, stride, count) => {
    switch (spec.op) {
      case 'sum':
      case 'mean': {
        let s = 0;
        let c = 0;
        for (let k = 0, i = first; k < count; k++, i += stride) {
          const x = toNumber(d, i);
          const t = s + x;
          c += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
          s = t;
        }
        f.sum[o] = compensatedTotal(s, c);
        if (spec.op === 'mean') f.count[o] = count;
        return;
      }
      case 'prod':
      case 'nanprod': {
        // In flat order, as NumPy's multiply.reduce (no pairwise form for products).
        let v = 1;
        for (let k = 0, i = first; k < count; k++, i += stride) {
          const x = toNumber(d, i);
          if (x === x || spec.op === 'prod') v *= x;
        }
        f.value[o] = v;
        return;
      }
      case 'nanmin':
      case 'nanmax': {
        let v = spec.op === 'nanmin' ? Infinity : -Infinity;
        let n = 0;
        for (let k = 0, i = first; k < count; k++, i += stride) {
          const x = toNumber(d, i);
          if (x !== x) continue;
          n++;
          if (spec.op === 'nanmin' ? x < v : x > v) v = x;
        }
        f.value[o] = v;
        f.count[o] = n;
        return;
      }
      case 'nanmean': {
        let s = 0;
        let c = 0;
        let n = 0;
        for (let k = 0, i = first; k < count; k++, i += stride) {
          const x = toNumber(d, i);
          if (x !== x) continue;
          n++;
          const t = s + x;
          c += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
          s = t;
        }
        f.sum[o] = compensatedTotal(s, c);
        f.count[o] = n;
        return;
      }
      case 'var':
      case 'std': {
        let s = 0;
        for (let k = 0, i = first; k < count; k++, i += stride) s += toNumber(d, i);
        const mean = count > 0 ? s / count : 0;
        let m2 = 0;
        for (let k = 0, i = first; k < count; k++, i += stride) {
          const dx = toNumber(d, i) - mean;
          m2 += dx * dx;
        }
        f.count[o] = count;
        f.mean[o] = mean;
        f.m2[o] = m2;
        return;
      }
      case 'min':
      case 'max': {
        const better = spec.op === 'min' ? (x: number, y: number) => x < y : (x: number, y: number) => x > y;
        let v = count > 0 ? toNumber(d, first) : spec.op === 'min' ? Infinity : -Infinity;
        for (let k = 0, i = first; k < count; k++, i += stride) {
          const x = toNumber(d, i);
          if (x !== x) { v = NaN; break; }
          if (better(x, v)) v = x;
        }
        f.value[o] = v;
        return;
      }
      case 'argmin':
      case 'argmax': {
        const better = spec.op === 'argmin' ? (x: number, y: number) => x < y : (x: number, y: number) => x > y;
        let v = spec.op === 'argmin' ? Infinity : -Infinity;
        let at = -1;
        for (let k = 0, i = first; k < count; k++, i += stride) {
          const x = toNumber(d, i);
          if (x !== x) { v = NaN; at = i; break; }
          if (at < 0 || better(x, v)) { v = x; at = i; }
        }
        f.value[o] = v;
        f.index[o] = globalIndex(a.shape, at, spec);
        return;
      }
    }
  });
  return p;
}

/**
 * The int64 sum of a lane, wrapping as NumPy's. int32 values are added as numbers in runs short
 * enough (2**21) that the run's sum stays below 2**53 and so exact: BigInt only once per run.
 */
function exactSum(d: Int32Array | BigInt64Array | Uint8Array, first: number, stride: number, count: number): bigint {
  let total = 0n;
  if (d instanceof BigInt64Array) {
    for (let k = 0, i = first; k < count; k++, i += stride) total += d[i];
    return BigInt.asIntN(64, total);
  }
  const RUN = 1 << 21;
  for (let k0 = 0; k0 < count; k0 += RUN) {
    let s = 0;
    const end = Math.min(count, k0 + RUN);
    for (let k = k0, i = first + k0 * stride; k < end; k++, i += stride) s += d[i];
    total += BigInt(s);
  }
  return BigInt.asIntN(64, total);
}

/** Maps a flat index in the block to the global flat index (axis null) or the global index along the axis. */
function globalIndex(blockShape: number[], flat: number, spec: ReduceSpec): number {
  if (flat < 0) return -1;
  const offset = spec.offset ?? blockShape.map(() => 0);
  const local: number[] = new Array(blockShape.length);
  let r = flat;
  for (let d = blockShape.length - 1; d >= 0; d--) {
    local[d] = r % blockShape[d];
    r = Math.floor(r / blockShape[d]);
  }
  if (spec.axis !== null) return offset[spec.axis] + local[spec.axis];
  const g = spec.globalShape ?? blockShape;
  let out = 0;
  for (let d = 0; d < g.length; d++) out = out * g[d] + offset[d] + local[d];
  return out;
}

/** The combine step: folds partials (same op and shape) in order into one. */
export function combinePartials(parts: Partial[]): Partial {
  if (parts.length === 0) throw new Error('combine: no partials');
  const { op, shape } = parts[0];
  const out = emptyPartial(op, shape);
  const n = sizeOf(shape);
  for (const p of parts) {
    if (p.op !== op || p.shape.join() !== shape.join()) throw new Error(`combine: mismatched partials ${p.op}[${p.shape}] vs ${op}[${shape}]`);
  }
  const f = out.fields;
  if ((op === 'sum' || op === 'prod' || op === 'nanprod') && parts.every((p) => p.isum)) {
    const isum = new BigInt64Array(n);
    for (let o = 0; o < n; o++) {
      let t = op === 'sum' ? 0n : 1n;
      for (const p of parts) t = op === 'sum' ? t + p.isum![o] : BigInt.asIntN(64, t * p.isum![o]);
      isum[o] = BigInt.asIntN(64, t);
    }
    out.isum = isum;
  }
  for (let o = 0; o < n; o++) {
    switch (op) {
      case 'sum':
      case 'mean':
      case 'nanmean': {
        let s = 0;
        let c = 0;
        let cnt = 0;
        for (const p of parts) {
          const x = p.fields.sum[o];
          const t = s + x;
          c += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
          s = t;
          if (op !== 'sum') cnt += p.fields.count[o];
        }
        f.sum[o] = compensatedTotal(s, c);
        if (op !== 'sum') f.count[o] = cnt;
        break;
      }
      case 'nanmin':
      case 'nanmax': {
        let v = op === 'nanmin' ? Infinity : -Infinity;
        let cnt = 0;
        for (const p of parts) {
          const x = p.fields.value[o];
          cnt += p.fields.count[o];
          if (op === 'nanmin' ? x < v : x > v) v = x;
        }
        f.value[o] = v;
        f.count[o] = cnt;
        break;
      }
      case 'prod':
      case 'nanprod': {
        let v = 1;
        for (const p of parts) v *= p.fields.value[o];
        f.value[o] = v;
        break;
      }
      case 'var':
      case 'std': {
        let na = 0;
        let ma = 0;
        let m2a = 0;
        for (const p of parts) {
          const nb = p.fields.count[o];
          if (nb === 0) continue;
          const mb = p.fields.mean[o];
          const nab = na + nb;
          const delta = mb - ma;
          ma += (delta * nb) / nab;
          m2a += p.fields.m2[o] + (delta * delta * na * nb) / nab;
          na = nab;
        }
        f.count[o] = na;
        f.mean[o] = ma;
        f.m2[o] = m2a;
        break;
      }
      case 'min':
      case 'max': {
        let v = op === 'min' ? Infinity : -Infinity;
        for (const p of parts) {
          const x = p.fields.value[o];
          if (x !== x) { v = NaN; break; }
          if (op === 'min' ? x < v : x > v) v = x;
        }
        f.value[o] = v;
        break;
      }
      case 'argmin':
      case 'argmax': {
        let v = op === 'argmin' ? Infinity : -Infinity;
        let at = -1;
        for (const p of parts) {
          const x = p.fields.value[o];
          const i = p.fields.index[o];
          if (i < 0) continue;
          // NaN wins, and among NaNs the lowest index, as NumPy returns the first NaN.
          if (x !== x) { if (v === v || i < at) { v = NaN; at = i; } continue; }
          if (v !== v) continue;
          // Ties keep the smaller index, as NumPy returns the first occurrence.
          if (at < 0 || (op === 'argmin' ? x < v : x > v) || (x === v && i < at)) { v = x; at = i; }
        }
        f.value[o] = v;
        f.index[o] = at;
        break;
      }
    }
  }
  return out;
}

/**
 * The aggregate step: turns a fully combined partial into values, of `dtype` when given (the
 * combine spec's: NumPy's result dtype), else float64 (int64 for arg*).
 */
export function finalizePartial(p: Partial, ddof = 0, dtype?: DType): NDArray {
  const values = finalizeValues(p, ddof);
  if (!dtype || dtype === values.dtype) return values;
  if (dtype === 'int64' && p.isum) return { dtype, shape: p.shape, data: p.isum.slice() };
  return { dtype, shape: p.shape, data: castTo(values.data, dtype) };
}

/** Values of one dtype as another, as NumPy's astype: floats to integers truncate toward zero. */
function castTo(src: NumericArray, dtype: DType): NumericArray {
  const out = allocate(dtype, src.length);
  for (let i = 0; i < src.length; i++) {
    const x = src[i];
    if (out instanceof BigInt64Array) out[i] = typeof x === 'bigint' ? x : Number.isFinite(x) ? BigInt(Math.trunc(x)) : 0n;
    else if (out instanceof Uint8Array) out[i] = x !== 0 && x !== 0n ? 1 : 0;
    else out[i] = typeof x === 'bigint' ? Number(x) : out instanceof Int32Array ? Math.trunc(x) : x;
  }
  return out;
}

function finalizeValues(p: Partial, ddof: number): NDArray {
  const n = sizeOf(p.shape);
  const out = new Float64Array(n);
  const f = p.fields;
  for (let o = 0; o < n; o++) {
    switch (p.op) {
      case 'sum': out[o] = f.sum[o]; break;
      case 'mean':
      case 'nanmean': out[o] = f.sum[o] / f.count[o]; break;
      // An all-NaN slice: NumPy's NaN (with a RuntimeWarning).
      case 'nanmin':
      case 'nanmax': out[o] = f.count[o] === 0 ? NaN : f.value[o]; break;
      case 'var': out[o] = f.m2[o] / (f.count[o] - ddof); break;
      case 'std': out[o] = Math.sqrt(f.m2[o] / (f.count[o] - ddof)); break;
      case 'min':
      case 'max':
      case 'prod':
      case 'nanprod': out[o] = f.value[o]; break;
      case 'argmin':
      case 'argmax': out[o] = f.index[o]; break;
    }
  }
  if (p.op === 'argmin' || p.op === 'argmax') return { dtype: 'int64', shape: p.shape, data: BigInt64Array.from(out, (x) => BigInt(x)) };
  return { dtype: 'float64', shape: p.shape, data: out };
}
