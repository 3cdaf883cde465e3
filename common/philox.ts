/**
 * Philox4x32-10 and the counter-to-float mapping of docs/random.md: the reference that the
 * native-cpu and cuda backends match bit for bit (uniforms) or to 1e-12 (normals).
 */

const M0 = 0xd2511f53;
const M1 = 0xcd9e8d57;
const W0 = 0x9e3779b9;
const W1 = 0xbb67ae85;
const TWO_POW_26 = 67108864;
const TWO_POW_MINUS_53 = 1.1102230246251565e-16;
const TWO_POW_MINUS_24 = 5.960464477539063e-8;
const TWO_PI = 2 * Math.PI;

/** High 32 bits of the 64-bit product of two uint32s (Math.imul gives the low half). */
function mulhi(a: number, b: number): number {
  const aLo = a & 0xffff;
  const aHi = a >>> 16;
  const bLo = b & 0xffff;
  const bHi = b >>> 16;
  const lolo = aLo * bLo;
  const hilo = aHi * bLo;
  const lohi = aLo * bHi;
  const hihi = aHi * bHi;
  const mid = (lolo >>> 16) + (hilo & 0xffff) + (lohi & 0xffff);
  return (hihi + (hilo >>> 16) + (lohi >>> 16) + Math.floor(mid / 65536)) >>> 0;
}

/** Writes Philox4x32-10(counter, key) into `out` (four uint32). */
export function philox4x32(c0: number, c1: number, c2: number, c3: number, k0: number, k1: number, out: Uint32Array): void {
  for (let round = 0; round < 10; round++) {
    if (round > 0) {
      k0 = (k0 + W0) >>> 0;
      k1 = (k1 + W1) >>> 0;
    }
    const hi0 = mulhi(M0, c0);
    const lo0 = Math.imul(M0, c0) >>> 0;
    const hi1 = mulhi(M1, c2);
    const lo1 = Math.imul(M1, c2) >>> 0;
    c0 = (hi1 ^ c1 ^ k0) >>> 0;
    c1 = lo1;
    c2 = (hi0 ^ c3 ^ k1) >>> 0;
    c3 = lo0;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/** The Philox key of a seed (an integer in [0, 2^53)). */
export function seedKey(seed: number): [number, number] {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be an integer in [0, 2^53), got ${seed}`);
  return [seed % 4294967296 >>> 0, Math.floor(seed / 4294967296) >>> 0];
}

/** float64 uniform in (0, 1] from two words, exactly as docs/random.md defines it. */
export function uniform64(a: number, b: number): number {
  return ((a >>> 5) * TWO_POW_26 + (b >>> 6) + 1) * TWO_POW_MINUS_53;
}

/** float32 uniform in (0, 1] from one word. */
export function uniform32(w: number): number {
  return ((w >>> 8) + 1) * TWO_POW_MINUS_24;
}

/**
 * Generates values of the virtual array for a list of flat indices, calling `emit(k, value)` for
 * the k-th index. Consecutive indices that share a Philox block reuse one call.
 */
export class PhiloxStream {
  private readonly k0: number;
  private readonly k1: number;
  private readonly words = new Uint32Array(4);
  private block = -1;
  // Box-Muller pair of the current block (float64: one pair; float32: two pairs).
  private readonly cached = new Float64Array(4);

  constructor(
    seed: number,
    private readonly dist: 'normal' | 'uniform',
    private readonly a: number,
    private readonly b: number,
    private readonly float32: boolean,
  ) {
    [this.k0, this.k1] = seedKey(seed);
  }

  /** Value of flat element `i`. */
  at(i: number): number {
    const per = this.float32 ? 4 : 2;
    const j = Math.floor(i / per);
    if (j !== this.block) this.fillBlock(j);
    return this.cached[i - j * per];
  }

  /**
   * Elements start .. start + out.length - 1, exactly as at() gives them, in one pass: a data set
   * of millions of values (the MNIST-shaped example's 47 M normals) without a call and a block
   * lookup per element.
   */
  read(start: number, out: Float64Array): void {
    const per = this.float32 ? 4 : 2;
    const c = this.cached;
    let k = 0;
    while (k < out.length) {
      const i = start + k;
      const j = Math.floor(i / per);
      if (j !== this.block) this.fillBlock(j);
      const from = i - j * per;
      const m = Math.min(per - from, out.length - k);
      for (let q = 0; q < m; q++) out[k + q] = c[from + q];
      k += m;
    }
  }

  private fillBlock(j: number): void {
    this.block = j;
    const w = this.words;
    philox4x32(j % 4294967296 >>> 0, Math.floor(j / 4294967296) >>> 0, 0, 0, this.k0, this.k1, w);
    const c = this.cached;
    if (!this.float32) {
      const u1 = uniform64(w[0], w[1]);
      const u2 = uniform64(w[2], w[3]);
      if (this.dist === 'uniform') {
        const span = this.b - this.a;
        c[0] = this.a + span * u1;
        c[1] = this.a + span * u2;
      } else {
        const r = Math.sqrt(-2 * Math.log(u1));
        const t = TWO_PI * u2;
        c[0] = this.a + this.b * (r * Math.cos(t));
        c[1] = this.a + this.b * (r * Math.sin(t));
      }
      return;
    }
    const f = Math.fround;
    const u = [uniform32(w[0]), uniform32(w[1]), uniform32(w[2]), uniform32(w[3])];
    if (this.dist === 'uniform') {
      const lo = f(this.a);
      const span = f(f(this.b) - lo);
      for (let q = 0; q < 4; q++) c[q] = f(lo + f(span * u[q]));
      return;
    }
    const mean = f(this.a);
    const std = f(this.b);
    for (let p = 0; p < 2; p++) {
      const r = f(Math.sqrt(f(-2 * f(Math.log(u[2 * p])))));
      const t = f(f(TWO_PI) * u[2 * p + 1]);
      c[2 * p] = f(mean + f(std * f(r * f(Math.cos(t)))));
      c[2 * p + 1] = f(mean + f(std * f(r * f(Math.sin(t)))));
    }
  }
}
