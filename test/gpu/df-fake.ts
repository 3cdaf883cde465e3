/**
 * A stand-in for the device df kernels where there is no GPU: cudaDfGroupby and cudaDfJoin in
 * plain js, reading the same descriptors and buffers (native/src/df_api.h's layouts), and
 * cudaDfFilter as the addon's host interpreter (the very df_expr.h the device runs). Running
 * df-checks.ts against it checks the marshalling in worker/kernels/df/gpu.ts and the checks
 * themselves; it says nothing about the CUDA code, which only the GPU machine can run.
 */
import type { DfAddon, DfBuffer } from '../../native/df';
import { numView, strView } from '../../worker/kernels/df/columns';
import { timeseries } from '../../worker/kernels/df/timeseries';

function i32(bufs: DfBuffer[], k: number): Int32Array | null {
  if (k < 0) return null;
  const b = bufs[k];
  if (!(b instanceof Int32Array)) throw new TypeError(`buffer ${k} must be an Int32Array`);
  return b;
}
function u8(bufs: DfBuffer[], k: number): Uint8Array | null {
  if (k < 0) return null;
  const b = bufs[k];
  if (!(b instanceof Uint8Array)) throw new TypeError(`buffer ${k} must be a Uint8Array`);
  return b;
}
function f64(bufs: DfBuffer[], k: number): Float64Array {
  const b = bufs[k];
  if (!(b instanceof Float64Array)) throw new TypeError(`buffer ${k} must be a Float64Array`);
  return b;
}

function groupby(desc: Float64Array, bufs: DfBuffer[], out: Float64Array): void {
  const [rows, slots, nk, nv, flags] = desc;
  const m2 = flags & 1;
  const minmax = flags & 2;
  if (out.length !== slots * (2 + 5 * nv)) throw new RangeError('out has the wrong size');
  const keys = Array.from({ length: nk }, (_, j) => {
    const e = desc.subarray(5 + 4 * j);
    return { codes: i32(bufs, e[0]) as Int32Array, valid: u8(bufs, e[1]), stride: e[2], card: e[3] };
  });
  const vals = Array.from({ length: nv }, (_, v) => {
    const e = desc.subarray(5 + 4 * nk + 2 * v);
    return { x: f64(bufs, e[0]), valid: u8(bufs, e[1]) };
  });
  const stat = (v: number, s: number) => (2 + 5 * v + s) * slots;
  out.fill(0);
  for (let s = 0; s < slots; s++) {
    out[slots + s] = -1;
    for (let v = 0; v < nv; v++) {
      out[stat(v, 2) + s] = Infinity;
      out[stat(v, 3) + s] = -Infinity;
    }
  }
  const slotOf = (i: number) => {
    let s = 0;
    for (const k of keys) {
      if (k.valid && !k.valid[i]) return -1;
      const c = k.codes[i];
      if (c < 0 || c >= k.card) throw new Error('groupby: a key code lies outside [0, card) of its key');
      s += c * k.stride;
    }
    return s;
  };
  for (let i = 0; i < rows; i++) {
    const s = slotOf(i);
    if (s < 0) continue;
    out[s]++;
    if (out[slots + s] < 0) out[slots + s] = i;
    vals.forEach((c, v) => {
      const x = c.x[i];
      if ((c.valid && !c.valid[i]) || x !== x) return;
      out[stat(v, 0) + s]++;
      out[stat(v, 1) + s] += x;
      if (!minmax) return;
      out[stat(v, 2) + s] = Math.min(out[stat(v, 2) + s], x);
      out[stat(v, 3) + s] = Math.max(out[stat(v, 3) + s], x);
    });
  }
  if (!m2) return;
  for (let i = 0; i < rows; i++) {
    const s = slotOf(i);
    if (s < 0) continue;
    vals.forEach((c, v) => {
      const x = c.x[i];
      if ((c.valid && !c.valid[i]) || x !== x) return;
      const d = x - out[stat(v, 1) + s] / out[stat(v, 0) + s];
      out[stat(v, 4) + s] += d * d;
    });
  }
}

function join(desc: Float64Array, bufs: DfBuffer[], li: Int32Array, ri: Int32Array, result: Float64Array): void {
  const [nl, nr, how, nk] = desc;
  const keys = Array.from({ length: nk }, (_, j) => {
    const e = desc.subarray(4 + 7 * j);
    return { lc: i32(bufs, e[0]) as Int32Array, lv: u8(bufs, e[1]), rc: i32(bufs, e[2]) as Int32Array, rv: u8(bufs, e[3]), map: i32(bufs, e[4]), stride: e[5], card: e[6] };
  });
  const keyOf = (left: boolean, i: number): number | null => {
    let key = 0;
    for (const k of keys) {
      if (left ? k.lv && !k.lv[i] : k.rv && !k.rv[i]) return null;
      let c = left ? k.lc[i] : k.rc[i];
      if (!left && k.map) c = c >= 0 && c < k.map.length ? k.map[c] : -1;
      if (c < 0 || c >= k.card) return null;
      key += c * k.stride;
    }
    return key;
  };
  const rows = new Map<number, number[]>();
  for (let r = 0; r < nr; r++) {
    const k = keyOf(false, r);
    if (k === null) continue;
    const list = rows.get(k) ?? [];
    list.push(r);
    rows.set(k, list);
  }
  const pairs: [number, number][] = [];
  const hit = new Set<number>();
  for (let i = 0; i < nl; i++) {
    const k = keyOf(true, i);
    const m = k === null ? undefined : rows.get(k);
    if (m) {
      hit.add(k as number);
      for (const r of m) pairs.push([i, r]);
    } else if (how !== 0) pairs.push([i, -1]);
  }
  if (how === 2) {
    for (let r = 0; r < nr; r++) {
      const k = keyOf(false, r);
      if (k === null || !hit.has(k)) pairs.push([-1, r]);
    }
  }
  result[0] = pairs.length;
  if (pairs.length > li.length) return;
  pairs.forEach(([a, b], k) => {
    li[k] = a;
    ri[k] = b;
  });
}

/**
 * The fused timeseries groupby: the js generator's rows as codes and values, through the groupby
 * fake above (first row -1 and counts = rows, as the device writes them).
 */
function timeseriesGroupby(desc: Float64Array, out: Float64Array): void {
  const [k0, k1, rowStart, rows, slots, nk, nv, flags] = desc;
  const names = ['name', 'id', 'x', 'y'];
  const keyCols = Array.from({ length: nk }, (_, j) => desc.subarray(8 + 3 * j, 11 + 3 * j));
  const valCols = Array.from(desc.subarray(8 + 3 * nk, 8 + 3 * nk + nv), (c) => names[c]);
  const t = timeseries({ seed: k0 + k1 * 2 ** 32, rowStart, rowCount: rows });
  const bufs: DfBuffer[] = [];
  const g: number[] = [rows, slots, nk, nv, flags];
  for (const [col, stride, card] of keyCols) {
    const codes = col === 0 ? strView(t.getChild('name')!, 'name').codes : Int32Array.from(numView(t.getChild('id')!, 'id').values, (v) => v - 700);
    g.push(bufs.push(codes) - 1, -1, stride, card);
  }
  for (const c of valCols) g.push(bufs.push(Float64Array.from(numView(t.getChild(c)!, c).values)) - 1, -1);
  groupby(Float64Array.from(g), bufs, out);
  for (let s = 0; s < slots; s++) out[slots + s] = -1;
}

/** The fake: js groupby and join, the addon's host interpreter for filters. */
export function fakeDfCuda(host: Pick<DfAddon, 'dfFilter'>): DfAddon {
  return {
    dfFilter: host.dfFilter,
    cudaDfFilter: host.dfFilter,
    cudaDfGroupby: async (desc, bufs, out) => groupby(desc, bufs, out),
    cudaDfJoin: async (desc, bufs, li, ri, result) => join(desc, bufs, li, ri, result),
    cudaDfTimeseriesGroupby: async (desc, out) => timeseriesGroupby(desc, out),
  };
}
