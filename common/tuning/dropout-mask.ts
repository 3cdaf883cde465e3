/**
 * Dropout's mask from the project's Philox (docs/random.md), the same on every backend: element i
 * keeps its value, scaled by 1 / (1 - rate) as tfjs's dropout scales it, when the float32 uniform
 * of word i % 4 of block i / 4 (key: the seed) exceeds `rate`, and is 0 otherwise. The CPU
 * backends build it here; gpuflow-cuda draws it on the device (native/tf-ops.ts DropoutMask),
 * bit for bit the same. (tfjs's own dropout draws from seedrandom's alea on the host, which the
 * device cannot reproduce.)
 */
import { philox4x32, seedKey, uniform32 } from '../philox';

/** The kept elements' multiplier: float32 1 / (1 - rate), as tfjs's div(floor(u + keep), keep). */
export function dropoutScale(rate: number): number {
  const keep = Math.fround(1 - rate);
  return Math.fround(1 / keep);
}

export function dropoutMask(n: number, seed: number, rate: number): Float32Array {
  const [k0, k1] = seedKey(seed);
  const out = new Float32Array(n);
  writeDropoutMask(out, n, k0, k1, rate, dropoutScale(rate));
  return out;
}

/** The mask's first n elements into `out`, from the key words (the fake device's DropoutMask too). */
export function writeDropoutMask(out: { [i: number]: number }, n: number, k0: number, k1: number, rate: number, scale: number): void {
  const w = new Uint32Array(4);
  for (let b = 0; b * 4 < n; b++) {
    philox4x32((b % 4294967296) >>> 0, Math.floor(b / 4294967296) >>> 0, 0, 0, k0, k1, w);
    for (let j = 0; j < 4 && b * 4 + j < n; j++) out[b * 4 + j] = uniform32(w[j]) > rate ? scale : 0;
  }
}
