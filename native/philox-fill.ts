/**
 * A strided block of a float64 random stream (docs/random.md): the addon's fill
 * (native/src/philox_fill.h: multi-threaded, bit-identical to common/philox.ts's PhiloxStream)
 * where the loaded addon has it (fillStreamAsync: off the JS thread), else PhiloxStream row by row.
 * Either way the same bytes, so a data set's digest does not depend on which machine or build made
 * it; only the time does.
 */
import { availableParallelism } from 'node:os';
import { PhiloxStream } from '../common/philox';
import { permutationOfDraws } from '../common/tuning/random';
import type { FloatArray, NativeAddon } from './addon-types';
import { loadNative } from './index';

/** Element (r, c) of the block is flat index start + r * stride + c of the stream. */
export interface StreamBlock {
  start: number;
  rows: number;
  cols: number;
  stride: number;
}

export interface StreamSpec {
  seed: number;
  dist: 'normal' | 'uniform';
  /** normal: mean, sd; uniform: low, high. */
  a: number;
  b: number;
}

/**
 * Writes the block into out[outOffset + r * outStride + c] (a Float32Array takes each value
 * rounded once, as Float32Array.set does) and says who filled it. With rowMap, block row r goes to
 * out[outOffset + rowMap[r] * outStride + c] instead.
 */
export function fillStream(s: StreamSpec, block: StreamBlock, out: FloatArray, outOffset: number, outStride: number, rowMap?: Int32Array): 'native' | 'js' {
  const { rows, cols } = block;
  if (rows === 0 || cols === 0) return 'js';
  const view = out.subarray(outOffset);
  const addon = fillAddon(rowMap);
  if (addon?.philoxFill) {
    addon.philoxFill(...addonArgs(s, block, view, outStride, rowMap));
    return 'native';
  }
  fillStreamJs(s, block, view, outStride, rowMap);
  return 'js';
}

/** The addon, where its fill can take this call (a row map needs a build that reads it). */
function fillAddon(rowMap: Int32Array | undefined): NativeAddon | undefined {
  const native = loadNative();
  if (!('addon' in native)) return undefined;
  return rowMap && !native.addon.philoxFillRowMap ? undefined : native.addon;
}

/**
 * As fillStream, the addon's fill running off this thread (its async form), so a worker's JS
 * thread answers messages while a large block fills (60 000 x 784 normals: 0.4 s on 2 cores).
 * `out` must not be read or written until the promise settles. An addon without the async form
 * fills synchronously, as fillStream.
 */
export async function fillStreamAsync(s: StreamSpec, block: StreamBlock, out: FloatArray, outOffset: number, outStride: number, rowMap?: Int32Array): Promise<'native' | 'js'> {
  const addon = fillAddon(rowMap);
  if (block.rows === 0 || block.cols === 0 || !addon?.philoxFillAsync) return fillStream(s, block, out, outOffset, outStride, rowMap);
  await addon.philoxFillAsync(...addonArgs(s, block, out.subarray(outOffset), outStride, rowMap));
  return 'native';
}

/** The addon fill's arguments (both forms take the same), on every core. */
function addonArgs(s: StreamSpec, block: StreamBlock, view: FloatArray, outStride: number, rowMap: Int32Array | undefined): Parameters<NonNullable<NativeAddon['philoxFill']>> {
  return [s.seed, s.dist === 'normal', s.a, s.b, block.start, block.rows, block.cols, block.stride, view, outStride, availableParallelism(), rowMap];
}

/** The same block from PhiloxStream (the reference; the fallback where the addon lacks the fill). */
export function fillStreamJs(s: StreamSpec, block: StreamBlock, out: FloatArray, outStride: number, rowMap?: Int32Array): void {
  const outRow = (r: number): number => (rowMap ? rowMap[r] : r);
  for (let r = 0; r < block.rows; r++) {
    if (!(outRow(r) >= 0 && outRow(r) * outStride + block.cols <= out.length)) {
      throw new RangeError(`out holds ${out.length} elements; row ${r} of ${block.cols} at out row ${outRow(r)}, stride ${outStride}, does not fit`);
    }
  }
  const stream = new PhiloxStream(s.seed, s.dist, s.a, s.b, false);
  const row = new Float64Array(block.cols);
  for (let r = 0; r < block.rows; r++) {
    stream.read(block.start + r * block.stride, row);
    out.set(row, outRow(r) * outStride);
  }
}

/**
 * Uniforms(seed).at(start .. start + count - 1) (common/tuning/random.ts) by the fill: the same
 * values, on every core where the addon is loaded (the MNIST-shaped rows' vertex choice alone
 * draws 2^20 of them, about 0.1 s of a worker's JS thread one by one).
 */
export function uniformDraws(seed: number, start: number, count: number): Float64Array {
  const out = new Float64Array(count);
  fillStream({ seed, dist: 'uniform', a: 0, b: 1 }, { start, rows: 1, cols: count, stride: count }, out, 0, count);
  return out;
}

/** permutation(n, seed) (common/tuning/random.ts) with its draws from the fill: the same order. */
export function filledPermutation(n: number, seed: number): Int32Array {
  return permutationOfDraws(n, uniformDraws(seed, 0, Math.max(0, n - 1)));
}
