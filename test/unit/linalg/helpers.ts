/** Shared helpers of the linalg tests: fixtures, plain (unblocked) reference products, norms. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NDArray } from '../../../common/arrays';
import { readNpy } from '../../../common/npy';

export function fixture(name: string): NDArray {
  return readNpy(new Uint8Array(readFileSync(join(__dirname, '../../fixtures/arrays/linalg', name))));
}

export function mat(rows: number[][]): NDArray {
  return { dtype: 'float64', shape: [rows.length, rows[0].length], data: Float64Array.from(rows.flat()) };
}

export function values(a: NDArray): number[] {
  return Array.from(a.data as Float64Array | Float32Array);
}

export function maxAbsDiff(a: NDArray, b: NDArray): number {
  expectSameShape(a, b);
  let d = 0;
  for (let i = 0; i < a.data.length; i++) d = Math.max(d, Math.abs(Number(a.data[i]) - Number(b.data[i])));
  return d;
}

function expectSameShape(a: NDArray, b: NDArray): void {
  if (a.shape.join() !== b.shape.join()) throw new Error(`shapes differ: [${a.shape}] vs [${b.shape}]`);
}

/** The textbook triple loop, as an oracle for the blocked kernel. */
export function naiveMatmul(a: NDArray, b: NDArray): Float64Array {
  const [m, k] = a.shape;
  const n = b.shape[1];
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += Number(a.data[i * k + p]) * Number(b.data[p * n + j]);
      c[i * n + j] = s;
    }
  }
  return c;
}

/** Frobenius norm of a flat array. */
export function frob(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * x[i];
  return Math.sqrt(s);
}

/** ||A - U diag(S) V^T||_F / ||A||_F for row blocks of U (or one block). */
export function reconstructionError(aBlocks: NDArray[], uBlocks: NDArray[], s: NDArray, vt: NDArray): number {
  const k = s.shape[0];
  const n = vt.shape[1];
  let num = 0;
  let den = 0;
  const us = new Float64Array(k);
  aBlocks.forEach((a, bi) => {
    const u = uBlocks[bi];
    for (let i = 0; i < a.shape[0]; i++) {
      for (let c = 0; c < k; c++) us[c] = Number(u.data[i * k + c]) * Number(s.data[c]);
      for (let j = 0; j < n; j++) {
        let x = 0;
        for (let c = 0; c < k; c++) x += us[c] * Number(vt.data[c * n + j]);
        const aij = Number(a.data[i * n + j]);
        num += (aij - x) ** 2;
        den += aij * aij;
      }
    }
  });
  return Math.sqrt(num / den);
}

/** ||Q^T Q - I||_F for a matrix given as row blocks of k columns (accumulated in float64). */
export function orthogonalityError(blocks: NDArray[]): number {
  const k = blocks[0].shape[1];
  const g = new Float64Array(k * k);
  for (const b of blocks) {
    const d = b.data as Float64Array;
    for (let i = 0; i < b.shape[0]; i++) {
      const row = i * k;
      for (let p = 0; p < k; p++) {
        const x = d[row + p];
        if (x === 0) continue;
        const gp = p * k;
        for (let q = p; q < k; q++) g[gp + q] += x * d[row + q];
      }
    }
  }
  let s = 0;
  for (let p = 0; p < k; p++) {
    for (let q = p; q < k; q++) {
      const e = g[p * k + q] - (p === q ? 1 : 0);
      s += (p === q ? 1 : 2) * e * e;
    }
  }
  return Math.sqrt(s);
}
