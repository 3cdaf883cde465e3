/**
 * The tfjs kernel calls of the addon (tfAlloc / tfWrite / tfRead / tfRun / tfSync) answered in
 * JavaScript over host arrays, for the fake CUDA addon (native/fake-cuda.ts): tests on a machine
 * without a GPU run the gpuflow-cuda backend's whole host side (argument records, strides,
 * transposes, fallbacks) through it. It reads the records as the CUDA side does (native/tf-ops.ts)
 * and computes as tfjs's cpu kernels do, so a test can compare the backend against the cpu one.
 */
import { writeDropoutMask } from '../common/tuning/dropout-mask';
import { Bop, isComparison, OptKind, OPT_SLOTS, Rop, TfOp, Uop } from './tf-ops';

type Buf = Float64Array | Float32Array | Int32Array;

const EPS = 1.1920928955078125e-7;
const SOFTPLUS_T = Math.log(EPS) + 2;

function unary(op: number, x: number, p0: number, p1: number): number {
  switch (op) {
    case Uop.Neg: return -x;
    case Uop.Abs: return Math.abs(x);
    case Uop.Square: return x * x;
    case Uop.Sqrt: return Math.sqrt(x);
    case Uop.Rsqrt: return 1 / Math.sqrt(x);
    case Uop.Exp: return Math.exp(x);
    case Uop.Log: return Math.log(x);
    case Uop.Log1p: return Math.log1p(x);
    case Uop.Relu: return x < 0 ? 0 : x;
    case Uop.Sigmoid: return 1 / (1 + Math.exp(-x));
    case Uop.Tanh: return Math.tanh(x);
    case Uop.Elu: return x >= 0 ? x : Math.exp(x) - 1;
    case Uop.Step: return Number.isNaN(x) ? x : x > 0 ? 1 : p0;
    case Uop.Floor: return Math.floor(x);
    case Uop.Ceil: return Math.ceil(x);
    case Uop.Round: {
      const f = Math.floor(x);
      const d = x - f;
      return d < 0.5 ? f : d > 0.5 ? f + 1 : f % 2 === 0 ? f : f + 1;
    }
    case Uop.Sign: return x > 0 ? 1 : x < 0 ? -1 : 0;
    case Uop.Reciprocal: return 1 / x;
    case Uop.Clip: return x < p0 ? p0 : x > p1 ? p1 : x;
    case Uop.Softplus: return x > -SOFTPLUS_T ? x : x < SOFTPLUS_T ? Math.exp(x) : Math.log(Math.exp(x) + 1);
    case Uop.Relu6: return x < 0 ? 0 : x > 6 ? 6 : x;
    case Uop.LeakyRelu: return x < 0 ? p0 * x : x;
    case Uop.Expm1: return Math.expm1(x);
    case Uop.Copy: return x;
    default: throw new RangeError(`fake tf: unknown unary op ${op}`);
  }
}

function binary(op: number, a: number, b: number): number {
  switch (op) {
    case Bop.Add: return a + b;
    case Bop.Sub: return a - b;
    case Bop.Mul: return a * b;
    case Bop.Div: return a / b;
    case Bop.Max: return a > b ? a : b;
    case Bop.Min: return a < b ? a : b;
    case Bop.Pow: return Math.pow(a, b);
    case Bop.SqDiff: return (a - b) * (a - b);
    case Bop.Equal: return +(a === b);
    case Bop.NotEqual: return +(a !== b);
    case Bop.Less: return +(a < b);
    case Bop.LessEq: return +(a <= b);
    case Bop.Greater: return +(a > b);
    case Bop.GreaterEq: return +(a >= b);
    case Bop.And: return +(a !== 0 && b !== 0);
    case Bop.Or: return +(a !== 0 || b !== 0);
    case Bop.EluGrad: return b >= 0 ? a : a * (b + 1);
    case Bop.ReluGrad: return a * (Number.isNaN(b) ? b : b > 0 ? 1 : 0);
    default: throw new RangeError(`fake tf: unknown binary op ${op}`);
  }
}

/** Offsets of element i in each operand, by its strides over `shape`. */
function offsetsOf(shape: number[], i: number, strides: number[][]): number[] {
  const off = strides.map(() => 0);
  for (let d = shape.length - 1; d >= 0; d--) {
    const r = i % shape[d];
    i = (i - r) / shape[d];
    for (let c = 0; c < strides.length; c++) off[c] += r * strides[c][d];
  }
  return off;
}

class Record {
  private at = 0;
  constructor(private readonly a: Float64Array) {}
  n(): number {
    if (this.at >= this.a.length) throw new RangeError('fake tf: the argument record ends early');
    return this.a[this.at++];
  }
  list(k: number): number[] {
    return Array.from({ length: k }, () => this.n());
  }
}

/** The double a LossSum buffer (two 4-byte elements) holds. */
function doubleIn(b: Buf): number {
  if (b.byteLength < 8) throw new RangeError('fake tf: a LossSum accumulator holds 8 bytes');
  return new Float64Array(b.buffer, b.byteOffset, 1)[0];
}

export interface FakeTfCalls {
  tfAlloc(elems: number, dtype: number): number;
  tfWrite(id: number, src: Float32Array | Int32Array): void;
  tfRead(id: number, dst: Float32Array | Int32Array): void;
  tfRun(op: number, args: Float64Array): void;
  tfSync(): void;
}

export function fakeTfCalls(get: (id: number) => Buf, put: (b: Buf) => number): FakeTfCalls {
  const run = (op: number, args: Float64Array) => {
    const r = new Record(args);
    switch (op) {
      case TfOp.Unary: {
        const [uop, x, out, n, , p0, p1] = r.list(7);
        const X = get(x), O = get(out);
        for (let i = 0; i < n; i++) O[i] = unary(uop, X[i], p0, p1);
        return;
      }
      case TfOp.Cast: {
        const [x, out, n, , to] = r.list(5);
        const X = get(x), O = get(out);
        for (let i = 0; i < n; i++) O[i] = to === 2 ? +(X[i] !== 0) : to === 1 ? (Number.isNaN(X[i]) ? 0 : Math.trunc(X[i])) : X[i];
        return;
      }
      case TfOp.Binary: {
        const [bop, a, b, out, , rank] = r.list(6);
        const shape = r.list(rank), sa = r.list(rank), sb = r.list(rank);
        const A = get(a), B = get(b), O = get(out);
        const n = shape.reduce((p, q) => p * q, 1);
        for (let i = 0; i < n; i++) {
          const [oa, ob] = offsetsOf(shape, i, [sa, sb]);
          O[i] = binary(bop, A[oa], B[ob]);
        }
        if (isComparison(bop) && !(O instanceof Int32Array)) throw new RangeError('fake tf: a comparison writes an int32 buffer');
        return;
      }
      case TfOp.Select: {
        const [c, a, b, out, rank] = r.list(5);
        const shape = r.list(rank), sc = r.list(rank), sa = r.list(rank), sb = r.list(rank);
        const C = get(c), A = get(a), B = get(b), O = get(out);
        const n = shape.reduce((p, q) => p * q, 1);
        for (let i = 0; i < n; i++) {
          const [oc, oa, ob] = offsetsOf(shape, i, [sc, sa, sb]);
          O[i] = C[oc] ? A[oa] : B[ob];
        }
        return;
      }
      case TfOp.Reduce: {
        const [rop, x, out, outer, inner] = r.list(6);
        const X = get(x), O = get(out);
        for (let o = 0; o < outer; o++) {
          const row = Array.from(X.subarray(o * inner, (o + 1) * inner));
          let v: number;
          switch (rop) {
            case Rop.Sum: v = row.reduce((s, q) => s + q, 0); break;
            case Rop.Mean: v = row.reduce((s, q) => s + q, 0) / inner; break;
            case Rop.Prod: v = row.reduce((s, q) => s * q, 1); break;
            case Rop.Max: v = row.reduce((s, q) => (q > s || Number.isNaN(q) ? q : s), -Infinity); break;
            case Rop.Min: v = row.reduce((s, q) => (q < s || Number.isNaN(q) ? q : s), Infinity); break;
            case Rop.ArgMax: case Rop.ArgMin: {
              v = 0;
              for (let i = 1; i < inner; i++) if (rop === Rop.ArgMax ? row[i] > row[v] : row[i] < row[v]) v = i;
              break;
            }
            case Rop.Any: v = +row.some((q) => q !== 0); break;
            case Rop.All: v = +row.every((q) => q !== 0); break;
            default: throw new RangeError(`fake tf: unknown reduction ${rop}`);
          }
          O[o] = v;
        }
        return;
      }
      case TfOp.Strided: {
        const [x, out, rank, offset] = r.list(4);
        const shape = r.list(rank), st = r.list(rank);
        const X = get(x), O = get(out);
        const n = shape.reduce((p, q) => p * q, 1);
        for (let i = 0; i < n; i++) O[i] = X[offset + offsetsOf(shape, i, [st])[0]];
        return;
      }
      case TfOp.Gather: {
        const [x, idx, out, outer, axisLen, inner, nIdx] = r.list(7);
        const X = get(x), I = get(idx), O = get(out);
        for (let o = 0; o < outer; o++)
          for (let j = 0; j < nIdx; j++)
            for (let i = 0; i < inner; i++) {
              const k = I[j];
              O[(o * nIdx + j) * inner + i] = k >= 0 && k < axisLen ? X[(o * axisLen + k) * inner + i] : 0;
            }
        return;
      }
      case TfOp.Gemm: {
        const [a, b, out, batch, m, n, k, ta, tb, strideA, strideB] = r.list(11);
        const A = get(a), B = get(b), O = get(out);
        for (let q = 0; q < batch; q++)
          for (let i = 0; i < m; i++)
            for (let j = 0; j < n; j++) {
              let s = 0;
              for (let p = 0; p < k; p++) s += A[q * strideA + (ta ? p * m + i : i * k + p)] * B[q * strideB + (tb ? j * k + p : p * n + j)];
              O[(q * m + i) * n + j] = s;
            }
        return;
      }
      case TfOp.Fill: {
        const [out, n, value] = r.list(4);
        get(out).fill(value, 0, n);
        return;
      }
      case TfOp.OneHot: {
        const [idx, out, n, depth, on, off] = r.list(7);
        const I = get(idx), O = get(out);
        for (let i = 0; i < n * depth; i++) O[i] = I[Math.floor(i / depth)] === i % depth ? on : off;
        return;
      }
      case TfOp.Softmax: {
        const [x, out, outer, inner] = r.list(4);
        const X = get(x), O = get(out);
        for (let o = 0; o < outer; o++) {
          const row = Array.from(X.subarray(o * inner, (o + 1) * inner));
          const m = row.reduce((s, q) => Math.max(s, q), -Infinity);
          const sum = row.reduce((s, q) => s + Math.exp(q - m), 0);
          for (let i = 0; i < inner; i++) O[o * inner + i] = Math.exp(row[i] - m) / sum;
        }
        return;
      }
      case TfOp.Optimizer: {
        const [kind, n, x, g, s0, s1, ox, o0, o1] = r.list(9);
        const p = r.list(8).map(Math.fround);
        const slots = OPT_SLOTS[kind];
        if (slots === undefined) throw new RangeError(`fake tf: unknown optimizer kind ${kind}`);
        const X = get(x), G = get(g), OX = get(ox);
        const [S0, S1, O0, O1] = [s0, s1, o0, o1].map((id, k) => ((k % 2) < slots ? get(id) : X));
        for (let i = 0; i < n; i++) {
          const gi = G[i];
          if (kind === OptKind.Sgd) OX[i] = p[0] * gi + X[i];
          else if (kind === OptKind.Momentum) {
            const a = (O0[i] = p[1] * S0[i] + gi);
            OX[i] = p[2] !== 0 ? p[0] * (gi + a * p[1]) + X[i] : p[0] * a + X[i];
          } else if (kind === OptKind.Adam) {
            const m = (O0[i] = S0[i] * p[1] + gi * p[2]);
            const v = (O1[i] = S1[i] * p[3] + gi * gi * p[4]);
            OX[i] = (m / p[6] / (Math.sqrt(v / p[7]) + p[5])) * p[0] + X[i];
          } else {
            const ms = (O0[i] = S0[i] * p[1] + gi * gi * p[2]);
            const mom = (O1[i] = S1[i] * p[3] + (gi * p[0]) / Math.sqrt(ms + p[4]));
            OX[i] = X[i] - mom;
          }
        }
        return;
      }
      case TfOp.DropoutMask: {
        const [out, n, k0, k1, rate, scale] = r.list(6);
        writeDropoutMask(get(out), n, k0, k1, rate, scale);
        return;
      }
      case TfOp.DropoutApply: {
        const [x, out, n, k0, k1, rate, scale] = r.list(7);
        const X = get(x), O = get(out);
        writeDropoutMask(O, n, k0, k1, rate, scale);
        // A float32 store of the double product of two float32 values: float32's multiply.
        for (let i = 0; i < n; i++) O[i] = X[i] * O[i];
        return;
      }
      case TfOp.ScaleColumns: {
        const [x, out, rows, cols] = r.list(4);
        const mean = r.list(cols), std = r.list(cols);
        const xs = get(x), o = get(out);
        // Float32Array stores round to nearest once, as the kernel's __double2float_rn.
        for (let i = 0; i < rows * cols; i++) o[i] = (xs[i] - mean[i % cols]) / std[i % cols];
        return;
      }
      case TfOp.ReduceCols: {
        const [rop, x, out, rows, cols] = r.list(6);
        if (rop !== Rop.Sum && rop !== Rop.Mean) throw new RangeError(`fake tf: ReduceCols takes Sum or Mean, not ${rop}`);
        const X = get(x), O = get(out);
        for (let c = 0; c < cols; c++) {
          let s = 0;
          for (let q = 0; q < rows; q++) s += X[q * cols + c];
          O[c] = rop === Rop.Mean ? s / rows : s;
        }
        return;
      }
      case TfOp.SoftmaxGrad: {
        const [dy, y, out, outer, inner] = r.list(5);
        const D = get(dy), Y = get(y), O = get(out);
        const f = Math.fround;
        for (let o = 0; o < outer; o++) {
          let s = 0;
          for (let i = 0; i < inner; i++) s += f(D[o * inner + i] * Y[o * inner + i]);
          const sf = f(s);
          for (let i = 0; i < inner; i++) {
            const k = o * inner + i;
            O[k] = f(f(D[k] * Y[k]) - f(sf * Y[k]));
          }
        }
        return;
      }
      case TfOp.CrossEntropy:
      case TfOp.CrossEntropyGrad: {
        const grad = op === TfOp.CrossEntropyGrad;
        const dy = grad ? r.n() : 0;
        const [labels, probs, out, rows, k, lo, hi] = r.list(7);
        const T = get(labels), P = get(probs), O = get(out), D = grad ? get(dy) : undefined;
        const f = Math.fround;
        for (let q = 0; q < rows; q++) {
          const row = q * k;
          let sd = 0;
          for (let j = 0; j < k; j++) sd += P[row + j];
          const s = f(sd);
          const clipped = (j: number) => {
            const v = f(P[row + j] / s);
            return { v, c: v < lo ? lo : v > hi ? hi : v };
          };
          if (!D) {
            let acc = 0;
            for (let j = 0; j < k; j++) acc += f(T[row + j] * f(Math.log(clipped(j).c)));
            O[q] = -f(acc);
            continue;
          }
          const g = -D[q];
          const dq = (j: number) => {
            const { v, c } = clipped(j);
            return v >= lo && v <= hi ? f(f(g * T[row + j]) / c) : 0;
          };
          let rd = 0;
          for (let j = 0; j < k; j++) rd += f(dq(j) * P[row + j]);
          const db = -f(f(rd) / f(s * s));
          for (let j = 0; j < k; j++) O[row + j] = f(f(dq(j) / s) + db);
        }
        return;
      }
      case TfOp.LossSum: {
        const [acc, loss, out, n] = r.list(4);
        const O = get(out);
        const prev = acc === 0 ? 0 : doubleIn(get(acc));
        new Float64Array(O.buffer, O.byteOffset, 1)[0] = prev + get(loss)[0] * n;
        return;
      }
      default:
        throw new RangeError(`fake tf: unknown op code ${op}`);
    }
  };
  return {
    tfAlloc: (elems, dtype) => put(dtype === 0 ? new Float32Array(elems) : new Int32Array(elems)),
    tfWrite(id, src) {
      const b = get(id);
      if (b.byteLength !== src.byteLength) throw new RangeError(`tfWrite: ${src.byteLength} bytes for a buffer of ${b.byteLength}`);
      new Uint8Array(b.buffer, b.byteOffset, b.byteLength).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
    },
    tfRead(id, dst) {
      const b = get(id);
      if (b.byteLength !== dst.byteLength) throw new RangeError(`tfRead: ${dst.byteLength} bytes for a buffer of ${b.byteLength}`);
      new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
    },
    tfRun: run,
    tfSync() {},
  };
}

/**
 * A whole fake device over a map of host arrays (tests and benches without a GPU): the tfjs calls,
 * the free of a buffer, and the map itself (a test counts what is left in it).
 */
export function fakeTfDevice(): { device: FakeTfCalls & { cudaResidentFree(id: number): boolean }; buffers: Map<number, Buf> } {
  const buffers = new Map<number, Buf>();
  let next = 1;
  const get = (id: number): Buf => {
    const b = buffers.get(id);
    if (!b) throw new RangeError(`no buffer ${id}`);
    return b;
  };
  const calls = fakeTfCalls(get, (b) => (buffers.set(next, b), next++));
  return { device: { ...calls, cudaResidentFree: (id) => buffers.delete(id) }, buffers };
}
