/**
 * Seeded randomness for tuning: sub-seeds, uniforms and permutations, all from Philox4x32-10
 * (docs/random.md) so a search, a split or an epoch's batch order is the same in every process.
 *
 * It imports the js reference generator from worker/kernels/js because that file is the one
 * implementation of the contract; it is pure (no Node or DOM imports), so main and renderer can
 * share it through common/.
 */
import { PhiloxStream, philox4x32, seedKey } from '../philox';

/** Purposes a sub-seed is derived for; distinct tags keep the streams independent. */
export const SeedTag = {
  sample: 1,
  trial: 2,
  bracket: 3,
  split: 4,
  epoch: 5,
  init: 6,
  dropout: 7,
  data: 8,
} as const;

const TWO_POW_32 = 4294967296;

/**
 * A new seed in [0, 2^53) from `seed` and up to three integer tags (each in [0, 2^32)):
 * one Philox block keyed by `seed` at counter `tags`, high bits dropped to 53.
 */
export function deriveSeed(seed: number, a: number, b = 0, c = 0): number {
  for (const t of [a, b, c]) {
    if (!Number.isInteger(t) || t < 0 || t >= TWO_POW_32) throw new RangeError(`seed tag must be an integer in [0, 2^32), got ${t}`);
  }
  const [k0, k1] = seedKey(seed);
  const w = new Uint32Array(4);
  philox4x32(a >>> 0, b >>> 0, c >>> 0, 0x74756e65 /* "tune" */, k0, k1, w);
  return (w[0] & 0x1fffff) * TWO_POW_32 + w[1];
}

/** Uniform float64 draws in (0, 1], addressed by index: `at(i)` is the same on every call. */
export class Uniforms {
  private readonly stream: PhiloxStream;
  constructor(seed: number) {
    this.stream = new PhiloxStream(seed, 'uniform', 0, 1, false);
  }
  at(i: number): number {
    return this.stream.at(i);
  }
}

/** An index in [0, n) from a uniform u in (0, 1]. */
export function indexOf(u: number, n: number): number {
  return Math.min(n - 1, Math.max(0, Math.ceil(u * n) - 1));
}

/** A seeded permutation of 0..n-1 (Fisher–Yates, draw k for position n-1-k). */
export function permutation(n: number, seed: number): Int32Array {
  const draws = new Float64Array(Math.max(0, n - 1));
  // Uniforms(seed).at(k) for every k at once (read gives at()'s values).
  new PhiloxStream(seed, 'uniform', 0, 1, false).read(0, draws);
  return permutationOfDraws(n, draws);
}

/**
 * permutation(n, seed) from its n - 1 draws, Uniforms(seed).at(0 .. n - 2), however they were
 * made (a worker takes large ones from the addon's fill: native/philox-fill.ts).
 */
export function permutationOfDraws(n: number, draws: ArrayLike<number>): Int32Array {
  if (draws.length < n - 1) throw new RangeError(`a permutation of ${n} needs ${n - 1} draws, got ${draws.length}`);
  const p = new Int32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  for (let i = n - 1, k = 0; i > 0; i--, k++) {
    const j = indexOf(draws[k], i + 1);
    const t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p;
}
