/**
 * A strided block of a float64 random stream (docs/random.md): the addon's fill
 * (native/src/philox_fill.h: multi-threaded, bit-identical to common/philox.ts's PhiloxStream)
 * where the loaded addon has it (fillStreamAsync: off the JS thread), else PhiloxStream row by row.
 * Either way the same bytes, so a data set's digest does not depend on which machine or build made
 * it; only the time does.
 */
import { availableParallelism } from 'node:os';
import { PhiloxStream } from '../common/philox';
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
 * rounded once, as Float32Array.set does) and says who filled it.
 */
export function fillStream(s: StreamSpec, block: StreamBlock, out: FloatArray, outOffset: number, outStride: number): 'native' | 'js' {
  const { rows, cols } = block;
  if (rows === 0 || cols === 0) return 'js';
  const native = loadNative();
  const view = out.subarray(outOffset);
  if ('addon' in native && native.addon.philoxFill) {
    native.addon.philoxFill(...addonArgs(s, block, view, outStride));
    return 'native';
  }
  fillStreamJs(s, block, view, outStride);
  return 'js';
}

/**
 * As fillStream, the addon's fill running off this thread (its async form), so a worker's JS
 * thread answers messages while a large block fills (60 000 x 784 normals: 0.4 s on 2 cores).
 * `out` must not be read or written until the promise settles. An addon without the async form
 * fills synchronously, as fillStream.
 */
export async function fillStreamAsync(s: StreamSpec, block: StreamBlock, out: FloatArray, outOffset: number, outStride: number): Promise<'native' | 'js'> {
  const native = loadNative();
  if (block.rows === 0 || block.cols === 0 || !('addon' in native) || !native.addon.philoxFillAsync) return fillStream(s, block, out, outOffset, outStride);
  await native.addon.philoxFillAsync(...addonArgs(s, block, out.subarray(outOffset), outStride));
  return 'native';
}

/** The addon fill's arguments (both forms take the same), on every core. */
function addonArgs(s: StreamSpec, block: StreamBlock, view: FloatArray, outStride: number): Parameters<NonNullable<NativeAddon['philoxFill']>> {
  return [s.seed, s.dist === 'normal', s.a, s.b, block.start, block.rows, block.cols, block.stride, view, outStride, availableParallelism()];
}

/** The same block from PhiloxStream (the reference; the fallback where the addon lacks the fill). */
export function fillStreamJs(s: StreamSpec, block: StreamBlock, out: FloatArray, outStride: number): void {
  if ((block.rows - 1) * outStride + block.cols > out.length) throw new RangeError(`out holds ${out.length} elements; ${block.rows} rows of ${block.cols} at stride ${outStride} need more`);
  const stream = new PhiloxStream(s.seed, s.dist, s.a, s.b, false);
  const row = new Float64Array(block.cols);
  for (let r = 0; r < block.rows; r++) {
    stream.read(block.start + r * block.stride, row);
    out.set(row, r * outStride);
  }
}
