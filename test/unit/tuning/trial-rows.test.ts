// A search trial's rows built faster (issue 26) and still the same bits: every case of
// test/fixtures/tuning/trial-rows-cases.ts against the digests recorded from the generator, split
// and scaler before the change (trial-rows.json, made at 754ad0a), through the search's own path
// (search-tasks.ts trialRows) and the generate-then-split one; and each new piece against its JS
// reference: permutations from filled draws, the fill's row map, the addon's column moments.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { DataSpec } from '../../../common/tuning/data-spec';
import { deriveSeed, indexOf, permutation, permutationOfDraws, Uniforms } from '../../../common/tuning/random';
import { loadNative } from '../../../native/index';
import { columnMoments, columnMomentsJs, scaleColumns, scaleColumnsJs } from '../../../native/column-moments';
import { filledPermutation, fillStream, fillStreamJs, uniformDraws } from '../../../native/philox-fill';
import { makeClassification, makeRegression, type Dataset } from '../../../worker/kernels/tfjs/datasets';
import { trialRows } from '../../../worker/kernels/tfjs/search-tasks';
import { makeClassificationSplitAsync, splitRows, trainValidationSplit } from '../../../worker/kernels/tfjs/split';
import { trialRowsCases } from '../../fixtures/tuning/trial-rows-cases';
import { caseDigest, type RowsDigest } from '../../fixtures/tuning/trial-rows-digest';

const recorded = JSON.parse(readFileSync(new URL('../../fixtures/tuning/trial-rows.json', import.meta.url), 'utf8')) as RowsDigest[];
const native = loadNative();
const addon = 'addon' in native ? native.addon : undefined;
const skipNative = !addon?.philoxFillRowMap || !addon.columnMoments || !addon.scaleColumns;

/** An array's bytes (toEqual would let 0 equal -0). */
const bits = (a: Float32Array | Float64Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** The permutation as common/tuning/random.ts drew it before (one Uniforms.at a step). */
function permutationBefore(n: number, seed: number): Int32Array {
  const p = Int32Array.from({ length: n }, (_, i) => i);
  const u = new Uniforms(seed);
  for (let i = n - 1, k = 0; i > 0; i--, k++) {
    const j = indexOf(u.at(k), i + 1);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

function generateThenSplit(spec: DataSpec): Promise<{ train: Dataset; validation: Dataset }> {
  const s = spec.source;
  if (s.kind === 'table') throw new Error('synthetic cases only');
  return Promise.resolve(trainValidationSplit(s.kind === 'classification' ? makeClassification(s) : makeRegression(s), spec.split));
}

describe('trial rows: the bits recorded before the cuts', () => {
  it('the fixture covers every case, errors and odd sizes among them', () => {
    expect(recorded).toHaveLength(trialRowsCases.length);
    expect(recorded.filter((r) => 'error' in r).length).toBeGreaterThan(0);
    expect(recorded.filter((r) => 'trainX' in r).length).toBeGreaterThan(30);
  });

  it('the search path (rows generated where the split puts them) gives every recorded digest', async () => {
    for (const [i, spec] of trialRowsCases.entries()) expect(await caseDigest(spec, (s) => trialRows(s, undefined)), JSON.stringify(spec)).toEqual(recorded[i]);
  });

  it('generate then split (the synchronous generator, predict and dataset-info) gives every recorded digest', async () => {
    for (const [i, spec] of trialRowsCases.entries()) expect(await caseDigest(spec, generateThenSplit), JSON.stringify(spec)).toEqual(recorded[i]);
  });

  it('the placed rows are views of one buffer, training rows first (no copy)', async () => {
    const s = await makeClassificationSplitAsync({ nSamples: 101, nFeatures: 7, nInformative: 3, nClasses: 3, seed: 4 }, { validationFraction: 0.3, seed: 1, stratify: true });
    expect(s.train.x.buffer).toBe(s.validation.x.buffer);
    expect(s.train.x.byteOffset).toBe(0);
    expect(s.validation.x.byteOffset).toBe(s.train.x.byteLength);
    expect(s.train.nRows + s.validation.nRows).toBe(101);
  });
});

describe('the stratified split on its own', () => {
  it('leaves rows whose target is no class index out of both parts, as the per-class scan did', () => {
    const y = Float32Array.from([0, 1, 2.5, 1, -1, 0, 0, 1, 3, 1]);
    const ds = { task: 'classification' as const, nRows: y.length, y, classes: [0, 1] };
    const { train, validation } = splitRows(ds, { validationFraction: 0.5, seed: 3, stratify: true });
    const all = [...train, ...validation].sort((a, b) => a - b);
    expect(all).toEqual([0, 1, 3, 5, 6, 7, 9]);
    // Class 0 has rows 0, 5, 6: round(1.5) = 2 to validation; class 1 rows 1, 3, 7, 9: 2.
    expect(validation).toHaveLength(4);
    const p0 = permutationBefore(3, deriveSeed(deriveSeed(3, 4), 0));
    expect([...validation.slice(0, 2)]).toEqual([[0, 5, 6][p0[0]], [0, 5, 6][p0[1]]]);
  });
});

describe('permutations from filled draws', () => {
  it('equal the one-draw-at-a-time permutation for sizes 0 to 2^16 + 3', () => {
    for (const n of [0, 1, 2, 3, 17, 1000, 65539]) {
      const seed = deriveSeed(n, 9);
      const before = permutationBefore(n, seed);
      expect(permutation(n, seed)).toEqual(before);
      expect(filledPermutation(n, seed)).toEqual(before);
    }
  });

  it('uniformDraws are Uniforms.at from any start; too few draws is an error', () => {
    const u = new Uniforms(77);
    const d = uniformDraws(77, 5, 9);
    expect([...d]).toEqual(Array.from({ length: 9 }, (_, k) => u.at(5 + k)));
    expect(() => permutationOfDraws(4, new Float64Array(2))).toThrow(/needs 3 draws, got 2/);
  });
});

describe.skipIf(skipNative)('the addon: fill with a row map, column moments, the scaled copy', () => {
  const spec = { seed: 123456789, dist: 'normal' as const, a: 0, b: 1 };

  it('fills each block row into its mapped out row, as the JS reference does, float32 and float64', () => {
    for (const [rows, cols, stride] of [[1, 1, 1], [7, 3, 5], [33, 17, 40], [257, 720, 784]]) {
      const map = permutation(rows, rows + cols);
      for (const make of [(n: number) => new Float32Array(n), (n: number) => new Float64Array(n)]) {
        const outStride = cols + 2;
        const got = make(rows * outStride + 1);
        const want = make(rows * outStride + 1);
        expect(fillStream(spec, { start: 11, rows, cols, stride }, got, 1, outStride, map)).toBe('native');
        fillStreamJs(spec, { start: 11, rows, cols, stride }, want.subarray(1), outStride, map);
        expect(bits(got).equals(bits(want))).toBe(true);
        // Row map r of the reference is block row r without a map.
        const plain = make(rows * outStride);
        fillStreamJs(spec, { start: 11, rows, cols, stride }, plain, outStride);
        expect(bits(got.subarray(1 + map[0] * outStride, 1 + map[0] * outStride + cols)).equals(bits(plain.subarray(0, cols)))).toBe(true);
      }
    }
  });

  it('refuses a row map entry outside out, naming it', () => {
    const out = new Float32Array(10);
    expect(() => fillStream(spec, { start: 0, rows: 2, cols: 5, stride: 5 }, out, 0, 5, Int32Array.from([1, 2]))).toThrow(/rowMap\[1\] = 2 is not a row of out/);
    expect(() => fillStream(spec, { start: 0, rows: 2, cols: 5, stride: 5 }, out, 0, 5, Int32Array.from([-1, 0]))).toThrow(/rowMap\[0\] = -1/);
    expect(() => fillStreamJs(spec, { start: 0, rows: 2, cols: 5, stride: 5 }, out, 5, Int32Array.from([0, 2]))).toThrow(/row 1 of 5 at out row 2/);
  });

  it('column moments equal the JS fit to the bit on odd shapes and mixed scales', () => {
    let s = 99;
    const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 200 - 100;
    for (const [rows, cols] of [[1, 1], [2, 3], [5, 16], [7, 17], [1001, 37], [4003, 100]]) {
      const x = Float32Array.from({ length: rows * cols }, (_, k) => next() * (k % 3 === 0 ? 1e4 : 1) + (k % 5 === 0 ? 1e6 : 0));
      const got = columnMoments(x, rows, cols);
      const want = columnMomentsJs(x, rows, cols);
      expect(bits(got.mean).equals(bits(want.mean))).toBe(true);
      expect(bits(got.sq).equals(bits(want.sq))).toBe(true);
    }
    expect(() => columnMoments(new Float32Array(5), 2, 3)).toThrow(/expected 2 x 3 values, got 5/);
  });

  it('the scaled copy equals the JS loop to the bit (the fitted scaler, a constant column, -0)', () => {
    let s = 7;
    const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 20 - 10;
    for (const [rows, cols] of [[1, 1], [3, 5], [257, 17], [1000, 784]]) {
      const x = Float32Array.from({ length: rows * cols }, (_, k) => (k % cols === 0 ? 2 : k % 7 === 0 ? -0 : next() * 1e3));
      const { mean, sq } = columnMomentsJs(x, rows, cols);
      const sd = Array.from(sq, (v) => (Math.sqrt(v / rows) > 1e-12 ? Math.sqrt(v / rows) : 1));
      expect(bits(scaleColumns(x, rows, cols, Array.from(mean), sd)).equals(bits(scaleColumnsJs(x, rows, cols, Array.from(mean), sd)))).toBe(true);
    }
    expect(() => scaleColumns(new Float32Array(6), 2, 3, [0, 0], [1, 1, 1])).toThrow(/3 means and deviations, got 6, 2 and 3/);
  });
});
