/**
 * Linear algebra nodes as task graphs (docs/linalg.md):
 * - matmul: blockwise contraction, C[i,j] = sum_l A[i,l] B[l,j], one task per output block;
 *   operand and output blocks carry grid coordinates so the scheduler places them SUMMA-like
 *   (main/engine/scheduler/placement.ts): A[i,l] at (i, l), B[l,j] at (l, j), C[i,j] at (i, j);
 * - qr / svd of tall-skinny arrays: TSQR as dask.array.linalg.tsqr does it: a QR per row block,
 *   one QR of the stacked R factors (and the SVD of R), then one recombination per row block;
 *   row block i, its QR and its recombination carry the 1-D place i, so they share a worker.
 * One-device lowerings, when the run has a cuda GPU worker (ctx.device) and the data fits it with
 * room to spare: a float64 qr / svd is one task over the row blocks (the worker gathers them on
 * the device and calls cuSOLVER once) instead of the TSQR tree; a matmul of generated inputs
 * (blocks that read no task output) generates A and B as single blocks, so the product is one
 * gemm where they are made. On several GPU workers, generated operands go in row panels, one
 * gemm per GPU with B made on each (rowPanelOperands). CPU-only runs, operands that read task
 * outputs, and data too big for the devices keep the block graphs.
 */
import { arrayOpSpec } from '../../../common/array-op-params';
import type { DType } from '../../../common/arrays';
import type { TaskPlace } from '../../../common/tasks';
import { bytesPerElement, sizeOf } from '../../../common/arrays';
import { fromKeys, materialize } from '../compile/array-lower';
import { axisChunks, blockShape } from '../compile/chunks';
import { rechunk, sameChunks } from '../compile/rechunk';
import { reblockLazy } from '../compile/reblock';
import { arrayInput } from './arrays-core';
import type { BuildContext, LazyArray, OpDef } from './types';

/**
 * Share of a GPU worker's memory limit that a one-device lowering may plan to use: the rest is
 * left for whatever else the run keeps there.
 */
export const ONE_DEVICE_SHARE = 0.5;

/** Whether a one-device lowering whose device working set is `bytes` may be taken. */
function fitsOneDevice(ctx: BuildContext, bytes: number): boolean {
  return ctx.device !== undefined && ctx.device.gpus === 1 && bytes <= ctx.device.bytes * ONE_DEVICE_SHARE;
}

const floatOf = (...d: DType[]): DType => (d.every((x) => x === 'float32') ? 'float32' : 'float64');

function need2d(ctx: BuildContext, a: LazyArray, port: string): void {
  if (a.shape.length !== 2) ctx.fail(`inputs.${port}`, `expects a 2-D array, got shape (${a.shape.join(', ')})`);
}

const matmul: OpDef = {
  deviceLibraries: true,
  spec: {
    op: 'matmul',
    label: 'Matmul',
    category: 'arrays',
    doc: 'Matrix product a @ b of 2-D arrays, as a blockwise contraction (cuBLAS on GPU workers, BLAS or blocked C++ on CPU workers).',
    inputs: [
      { name: 'a', type: 'array' },
      { name: 'b', type: 'array' },
    ],
    outputs: [{ name: 'out', type: 'array' }],
    params: [],
  },
  build(ctx) {
    const a0 = arrayInput(ctx, 'a');
    const b0 = arrayInput(ctx, 'b');
    need2d(ctx, a0, 'a');
    need2d(ctx, b0, 'b');
    if (a0.shape[1] !== b0.shape[0]) ctx.fail('inputs.b', `shapes (${a0.shape.join(', ')}) and (${b0.shape.join(', ')}) do not align: ${a0.shape[1]} != ${b0.shape[0]}`);
    const one = oneBlockOperands(ctx, a0, b0);
    const panels = one ? null : rowPanelOperands(ctx, a0, b0);
    if (panels) return { out: rowPanelProduct(ctx, panels) };
    // One block of each: the GPU generates them and multiplies (a CPU worker would need them all).
    const bctx: BuildContext = one ? { ...ctx, arrayResource: 'gpu' } : ctx;
    const [a1, b1] = one ?? [a0, b0];
    const grid = (idx: number[]): TaskPlace => ({ grid: [idx[0], idx[1]] });
    const a = materialize(a1, bctx, 'a', grid);
    // The contraction axis must be split the same way on both sides.
    const bc = [a.chunks[1], b1.chunks[1]];
    const b = materialize(sameChunks(b1.chunks, bc) ? b1 : rechunk(b1, bc, ctx, 'align-b'), bctx, 'b', grid);
    const L = a.chunks[1].length;
    const dtype = floatOf(a.dtype, b.dtype);
    const chunks = [a.chunks[0], b.chunks[1]];
    const keys: string[] = [];
    for (let i = 0; i < chunks[0].length; i++) {
      for (let j = 0; j < chunks[1].length; j++) {
        const deps: string[] = [];
        for (let l = 0; l < L; l++) deps.push(a.block([i, l]).deps[0]);
        for (let l = 0; l < L; l++) deps.push(b.block([l, j]).deps[0]);
        const outBytes = sizeOf(blockShape(chunks, [i, j])) * bytesPerElement(dtype);
        const inBytes = deps.length * Math.max(sizeOf(blockShape(a.chunks, [i, 0])), sizeOf(blockShape(b.chunks, [0, j]))) * bytesPerElement(dtype);
        const key = ctx.key('matmul', [i, j]);
        ctx.emit({ key, deps, spec: arrayOpSpec('matmul', { k: L }), resource: one ? 'gpu' : 'any', op: 'matmul', outBytes, workBytes: outBytes + inBytes, place: { grid: [i, j] } });
        keys.push(key);
      }
    }
    return { out: fromKeys([a.shape[0], b.shape[1]], chunks, dtype, keys, ctx.nodeId, [ctx.nodeId]) };
  },
};

/**
 * Generated operands as one block each when A, B and C fit one GPU: the product is then one gemm
 * on the device where A and B were generated, instead of a k-deep sum of block products per
 * output block (16384^2 in 4096^2 chunks: 64 gemms, 48 accumulator copies, 80 tasks -> 4).
 */
function oneBlockOperands(ctx: BuildContext, a: LazyArray, b: LazyArray): [LazyArray, LazyArray] | null {
  const [m, k] = a.shape;
  const n = b.shape[1];
  const elem = bytesPerElement(floatOf(a.dtype, b.dtype));
  const one = (x: LazyArray) => x.chunks.every((c) => c.length === 1);
  if (one(a) && one(b)) return null;
  // The device kernels index a block with 32-bit integers.
  if (!fitsOneDevice(ctx, (m * k + k * n + m * n) * elem) || m * k >= 2 ** 31 || k * n >= 2 ** 31 || m * n >= 2 ** 31) return null;
  const a1 = one(a) ? a : reblockLazy(a, [[m], [k]]);
  const b1 = one(b) ? b : reblockLazy(b, [[k], [n]]);
  return a1 && b1 ? [a1, b1] : null;
}

/**
 * Generated operands on G >= 2 GPU workers (real or virtual; compile/coarsen.ts's share): A in G
 * row panels, B as one block generated again on every GPU (random numbers are addressed by global
 * index, so each copy is the same B; making it costs a GPU about a millisecond, moving it 1 GiB
 * over NVLink per peer), and one gemm per panel where its panel was made: C's row panel g =
 * A's panel g @ B, k not split. So no operand moves between GPUs, each GPU does 1/G of the flops,
 * and every element of C is summed over k by one gemm call as on one GPU (the one-gemm path
 * above), not by the k-block sum of the SUMMA graph (issue 30: 16384^2 in 4096^2 chunks on four
 * H100s moved 53 blocks and took longer than one GPU). Null when the operands read task outputs,
 * the run has fewer than two GPU workers, the product is under PANEL_MIN_MACS, or a GPU's share
 * does not fit (cuda: ONE_DEVICE_SHARE
 * of the smallest; CPU-backed GPU workers: B at most PANEL_CPU_B_ELEMENTS, since each makes its
 * own copy).
 */
export const PANEL_CPU_B_ELEMENTS = 2 ** 24;
/**
 * Products smaller than this many multiply-adds (1024^3) keep the block graph: there a GPU
 * finishes either graph in about a millisecond, so the panels buy nothing, and the block graph
 * spreads the work in smaller tasks (and its moves are what the transfer and IPC tests exercise).
 */
export const PANEL_MIN_MACS = 2 ** 30;

interface RowPanels {
  a: LazyArray;
  b: LazyArray;
  gpus: number;
}

function rowPanelOperands(ctx: BuildContext, a: LazyArray, b: LazyArray): RowPanels | null {
  const gpus = ctx.gpuShare.gpus;
  const [m, k] = a.shape;
  const n = b.shape[1];
  if (gpus < 2 || m < gpus || m * k * n < PANEL_MIN_MACS) return null;
  const rows = Math.ceil(m / gpus);
  const elem = bytesPerElement(floatOf(a.dtype, b.dtype));
  // The device kernels index a block with 32-bit integers.
  if (rows * k >= 2 ** 31 || k * n >= 2 ** 31 || rows * n >= 2 ** 31) return null;
  const perGpu = (rows * k + k * n + rows * n) * elem;
  if (ctx.device ? ctx.device.gpus < 2 || perGpu > ctx.device.bytes * ONE_DEVICE_SHARE : k * n > PANEL_CPU_B_ELEMENTS) return null;
  const a1 = reblockLazy(a, [axisChunks(m, rows), [k]]);
  const b1 = reblockLazy(b, [[k], [n]]);
  return a1 && b1 ? { a: a1, b: b1, gpus: a1.chunks[0].length } : null;
}

function rowPanelProduct(ctx: BuildContext, p: RowPanels): LazyArray {
  // On cuda GPU workers the panels are theirs alone (a CPU worker would have to be sent them).
  const pctx: BuildContext = ctx.device ? { ...ctx, arrayResource: 'gpu' } : ctx;
  const a = materialize(p.a, pctx, 'a', (idx) => ({ index: idx[0] }));
  const dtype = floatOf(a.dtype, p.b.dtype);
  const [k, n] = p.b.shape;
  const keys: string[] = [];
  for (let g = 0; g < p.gpus; g++) {
    const b = materialize(p.b, pctx, `b${g}`, () => ({ index: g }));
    const rows = a.chunks[0][g];
    const outBytes = rows * n * bytesPerElement(dtype);
    const inBytes = (rows * k + k * n) * bytesPerElement(dtype);
    const key = ctx.key('matmul', [g, 0]);
    ctx.emit({ key, deps: [a.block([g, 0]).deps[0], b.block([0, 0]).deps[0]], spec: { kind: 'array-op', op: 'matmul', params: { k: 1 } }, resource: pctx.arrayResource, op: 'matmul', outBytes, workBytes: outBytes + inBytes, place: { index: g } });
    keys.push(key);
  }
  return fromKeys([a.shape[0], n], [a.chunks[0], [n]], dtype, keys, ctx.nodeId, [ctx.nodeId]);
}

/** Row chunks for TSQR: every block needs at least n rows, so a short last block joins the one before. */
export function tsqrRowChunks(rows: number[], n: number): number[] {
  const out: number[] = [];
  for (const r of rows) {
    if (out.length && (r < n || out[out.length - 1] < n)) out[out.length - 1] += r;
    else out.push(r);
  }
  return out;
}

interface Tsqr {
  rowChunks: number[];
  n: number;
  top: string;
  blocks: string[];
}

/** Emits the TSQR factor and top tasks; the caller emits the per-block recombinations. */
function tallSkinny(ctx: BuildContext, x: LazyArray): void {
  need2d(ctx, x, 'x');
  const [m, n] = x.shape;
  if (m < n) ctx.fail('inputs.x', `needs a tall-skinny array (rows >= columns), got (${m}, ${n})`);
}

function tsqr(ctx: BuildContext, x: LazyArray, svd: boolean): Tsqr {
  const [m, n] = x.shape;
  const rowChunks = tsqrRowChunks(x.chunks[0].every((r) => r >= n) ? x.chunks[0] : axisChunks(m, Math.max(n, x.chunks[0][0])), n);
  const want = [rowChunks, [n]];
  const a = materialize(sameChunks(x.chunks, want) ? x : rechunk(x, want, ctx, 'rows'), ctx, 'a', (idx) => ({ index: idx[0] }));
  const factors: string[] = [];
  rowChunks.forEach((r, i) => {
    const key = ctx.key('qr-block', [i]);
    const bytes = (r + 2) * n * 8 + n * n * 8;
    ctx.emit({ key, deps: a.block([i, 0]).deps, spec: arrayOpSpec('qr-block', {}), resource: 'any', op: 'qr-block', outBytes: bytes, workBytes: 2 * bytes, place: { index: i } });
    factors.push(key);
  });
  const top = ctx.key(svd ? 'svd-top' : 'qr-top');
  const k = rowChunks.length;
  const topBytes = (k * n * n + 4 * n * n) * 8;
  ctx.emit({ key: top, deps: factors, spec: arrayOpSpec('qr-top', { svd }), resource: 'any', op: svd ? 'svd-top' : 'qr-top', outBytes: topBytes, workBytes: 2 * topBytes });
  return { rowChunks, n, top, blocks: factors };
}

function recombine(ctx: BuildContext, t: Tsqr, svd: boolean, dtype: DType): LazyArray {
  const keys = t.blocks.map((f, i) => {
    const key = ctx.key(svd ? 'u' : 'q', [i, 0]);
    const bytes = t.rowChunks[i] * t.n * 8;
    ctx.emit({ key, deps: [f, t.top], spec: arrayOpSpec('qr-combine', { index: i, svd }), resource: 'any', op: svd ? 'svd-u' : 'qr-q', outBytes: bytes, workBytes: 3 * bytes, place: { index: i } });
    return key;
  });
  return fromKeys([t.rowChunks.reduce((s, r) => s + r, 0), t.n], [t.rowChunks, [t.n]], dtype, keys, ctx.nodeId, [ctx.nodeId]);
}

function pick(ctx: BuildContext, t: Tsqr, name: string, shape: number[], dtype: DType): LazyArray {
  const key = ctx.key(`pick-${name}`);
  const bytes = sizeOf(shape) * 8;
  ctx.emit({ key, deps: [t.top], spec: arrayOpSpec('pick', { name }), resource: 'any', op: name, outBytes: bytes, workBytes: bytes });
  return fromKeys(shape, shape.map((s) => [s]), dtype, [key], ctx.nodeId, [ctx.nodeId]);
}

/**
 * The one-task path of qr / svd: a float64 array that fits one GPU with room to spare goes to one
 * task that reads its row blocks (any row split, whole columns) and factors the whole array at
 * once: on a cuda worker the blocks are gathered on the device and cuSOLVER runs once
 * (worker/resident/linalg.ts); elsewhere the handler stacks them on the host.
 * Returns its key, or null when TSQR is the way.
 */
function oneTask(ctx: BuildContext, x: LazyArray, svd: boolean): { key: string; m: number; n: number } | null {
  const [m, n] = x.shape;
  // runtime.cu's transpose kernel puts the rows on the grid's y axis (at most 65535 blocks of 32).
  if (floatOf(x.dtype) !== 'float64' || m * n >= 2 ** 31 || m > 65535 * 32 || n === 0) return null;
  // The blocks, their stacked copy, the factor (and U) and the solver's copies of the array.
  if (!fitsOneDevice(ctx, 5 * m * n * 8 + 4 * n * n * 8)) return null;
  const want = [x.chunks[0], [n]];
  const gctx: BuildContext = { ...ctx, arrayResource: 'gpu' };
  const a = materialize(sameChunks(x.chunks, want) ? x : rechunk(x, want, ctx, 'rows'), gctx, 'a');
  const deps = x.chunks[0].map((_, i) => a.block([i, 0]).deps[0]);
  const key = ctx.key(svd ? 'svd' : 'qr');
  const bytes = (m * n + 2 * n * n + n) * 8;
  ctx.emit({ key, deps, spec: arrayOpSpec('factor-whole', { svd }), resource: 'gpu', op: svd ? 'svd' : 'qr', outBytes: bytes, workBytes: 2 * bytes + m * n * 8 });
  return { key, m, n };
}

/** One output of the one-task path, as one block. */
function pickWhole(ctx: BuildContext, from: string, name: string, shape: number[]): LazyArray {
  const key = ctx.key(`pick-${name}`);
  const bytes = sizeOf(shape) * 8;
  ctx.emit({ key, deps: [from], spec: arrayOpSpec('pick', { name }), resource: 'gpu', op: name, outBytes: bytes, workBytes: bytes });
  return fromKeys(shape, shape.map((s) => [s]), 'float64', [key], ctx.nodeId, [ctx.nodeId]);
}

const qr: OpDef = {
  deviceLibraries: true,
  spec: {
    op: 'qr',
    label: 'QR (tall-skinny)',
    category: 'arrays',
    doc: 'Reduced QR of a tall-skinny array by TSQR: Q has the input\'s row blocks, R is n x n with a non-negative diagonal.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [
      { name: 'q', type: 'array' },
      { name: 'r', type: 'array' },
    ],
    params: [],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    tallSkinny(ctx, x);
    const one = oneTask(ctx, x, false);
    if (one) return { q: pickWhole(ctx, one.key, 'q', [one.m, one.n]), r: pickWhole(ctx, one.key, 'r', [one.n, one.n]) };
    const t = tsqr(ctx, x, false);
    const dtype = floatOf(x.dtype);
    return { q: recombine(ctx, t, false, dtype), r: pick(ctx, t, 'r', [t.n, t.n], dtype) };
  },
};

const svd: OpDef = {
  deviceLibraries: true,
  spec: {
    op: 'svd',
    label: 'SVD (tall-skinny)',
    category: 'arrays',
    doc: 'Thin SVD of a tall-skinny array by TSQR and the SVD of R: A = U diag(S) Vᵀ, singular values descending, signs fixed.',
    inputs: [{ name: 'x', type: 'array' }],
    outputs: [
      { name: 'u', type: 'array' },
      { name: 's', type: 'array' },
      { name: 'vt', type: 'array' },
    ],
    params: [],
  },
  build(ctx) {
    const x = arrayInput(ctx, 'x');
    tallSkinny(ctx, x);
    const one = oneTask(ctx, x, true);
    if (one) return { u: pickWhole(ctx, one.key, 'u', [one.m, one.n]), s: pickWhole(ctx, one.key, 's', [one.n]), vt: pickWhole(ctx, one.key, 'vt', [one.n, one.n]) };
    const t = tsqr(ctx, x, true);
    const dtype = floatOf(x.dtype);
    return { u: recombine(ctx, t, true, dtype), s: pick(ctx, t, 's', [t.n], dtype), vt: pick(ctx, t, 'vt', [t.n, t.n], dtype) };
  },
};

export const LINALG_ARRAY_OPS: OpDef[] = [matmul, qr, svd];
