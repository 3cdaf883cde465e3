import { describe, expect, it } from 'vitest';
import { tableFromArrays } from 'apache-arrow';
import { datasetFromArrow, makeClassification, makeClassificationAsync, makeRegression, makeRegressionAsync } from '../../../worker/kernels/tfjs/datasets';
import { trainValidationSplit } from '../../../worker/kernels/tfjs/split';
import { PhiloxStream } from '../../../common/philox';
import { deriveSeed, SeedTag } from '../../../common/tuning/random';

describe('synthetic datasets', () => {
  it('classification is seeded, balanced, shaped as asked', () => {
    const a = makeClassification({ nSamples: 300, nFeatures: 6, nInformative: 2, nRedundant: 1, nClasses: 3, seed: 4 });
    expect(a.x).toHaveLength(300 * 6);
    expect(makeClassification({ nSamples: 300, nFeatures: 6, nInformative: 2, nRedundant: 1, nClasses: 3, seed: 4 }).x).toEqual(a.x);
    expect(makeClassification({ nSamples: 300, nFeatures: 6, nInformative: 2, nRedundant: 1, nClasses: 3, seed: 5 }).x).not.toEqual(a.x);
    const counts = [0, 0, 0];
    for (const c of a.y) counts[c]++;
    for (const c of counts) expect(Math.abs(c - 100)).toBeLessThan(10); // balanced up to the 1% label flips
  });

  it('classification: informative features are the normal at their flat index plus the class vertex, noise features that normal alone', () => {
    // The rows read the normal stream a row at a time (PhiloxStream.read); element by element with
    // at() is the reference, as the generator was written before.
    const ds = makeClassification({ nSamples: 257, nFeatures: 13, nInformative: 3, nRedundant: 2, nClasses: 4, classSep: 1.5, seed: 8 });
    const z = new PhiloxStream(deriveSeed(8, SeedTag.data, 1), 'normal', 0, 1, false);
    for (let i = 0; i < ds.nRows; i++) {
      for (let j = 0; j < 3; j++) expect([Math.fround(z.at(i * 13 + j) + 1.5), Math.fround(z.at(i * 13 + j) - 1.5)]).toContain(ds.x[i * 13 + j]);
      for (let j = 5; j < 13; j++) expect(ds.x[i * 13 + j]).toBe(Math.fround(z.at(i * 13 + j)));
    }
  });

  it('linearly separable: a hyperplane with a margin separates the two classes', () => {
    const ds = makeClassification({ nSamples: 400, nFeatures: 5, nInformative: 3, linearlySeparable: true, classSep: 1, seed: 2 });
    // Independent check: the perceptron converges (zero training errors) only on separable data.
    const w = new Float64Array(6);
    let errors = 1;
    for (let pass = 0; pass < 200 && errors > 0; pass++) {
      errors = 0;
      for (let i = 0; i < ds.nRows; i++) {
        const t = ds.y[i] === 1 ? 1 : -1;
        let s = w[5];
        for (let j = 0; j < 5; j++) s += w[j] * ds.x[i * 5 + j];
        if (t * s <= 0) {
          errors++;
          for (let j = 0; j < 5; j++) w[j] += t * ds.x[i * 5 + j];
          w[5] += t;
        }
      }
    }
    expect(errors).toBe(0);
  });

  it('regression targets are X coef + bias + noise', () => {
    const ds = makeRegression({ nSamples: 200, nFeatures: 4, nInformative: 2, noise: 0, bias: 3, seed: 1 });
    expect(ds.coef[2]).toBe(0);
    expect(ds.coef[0]).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) {
      let s = 3;
      for (let j = 0; j < 4; j++) s += ds.coef[j] * ds.x[i * 4 + j];
      expect(ds.y[i]).toBeCloseTo(s, 2);
    }
  });

  it('regression: X is the normal stream at its flat index and y sums its unrounded values, across the generator\'s blocks of rows', () => {
    // 1 100 rows of 1 000 features: the generator fills X 1 048 rows at a time, so row 1 048 starts a second block.
    const o = { nSamples: 1100, nFeatures: 1000, nInformative: 3, noise: 0.5, bias: 2, seed: 8 };
    const ds = makeRegression(o);
    const z = new PhiloxStream(deriveSeed(8, SeedTag.data, 11), 'normal', 0, 1, false);
    const e = new PhiloxStream(deriveSeed(8, SeedTag.data, 12), 'normal', 0, 1, false);
    for (const i of [0, 1, 1047, 1048, 1099]) {
      let sum = 2;
      for (let j = 0; j < 1000; j++) {
        expect(ds.x[i * 1000 + j]).toBe(Math.fround(z.at(i * 1000 + j)));
        sum += ds.coef[j] * z.at(i * 1000 + j);
      }
      expect(ds.y[i]).toBe(Math.fround(sum + 0.5 * e.at(i)));
    }
  });

  it('rejects impossible requests with the reason', () => {
    expect(() => makeClassification({ nSamples: 10, nInformative: 1, nClasses: 3, seed: 0 })).toThrow('nClasses (3) must be <= 2^nInformative (2)');
    expect(() => makeClassification({ nSamples: 10, nFeatures: 2, nInformative: 2, nRedundant: 1, seed: 0 })).toThrow(/nFeatures \(2\) must be >= nInformative \+ nRedundant \(3\)/);
  });

  // The workers' form (fills off the JS thread) against the synchronous one, itself checked
  // against PhiloxStream above: every byte of x and y, every block of rows.
  it('the async generators (what workers run) give the same bytes as the synchronous ones', async () => {
    for (const o of [
      { nSamples: 3000, nFeatures: 50, nInformative: 4, nRedundant: 3, nClasses: 5, seed: 21 },
      { nSamples: 500, nFeatures: 9, nInformative: 3, linearlySeparable: true, seed: 3 },
    ]) {
      const want = makeClassification(o);
      const got = await makeClassificationAsync(o);
      expect(Buffer.from(got.x.buffer).equals(Buffer.from(want.x.buffer))).toBe(true);
      expect(Buffer.from(got.y.buffer).equals(Buffer.from(want.y.buffer))).toBe(true);
    }
    const o = { nSamples: 1100, nFeatures: 1000, nInformative: 3, noise: 0.5, bias: 2, seed: 8 };
    const want = makeRegression(o);
    const got = await makeRegressionAsync(o);
    expect(Buffer.from(got.x.buffer).equals(Buffer.from(want.x.buffer))).toBe(true);
    expect(Buffer.from(got.y.buffer).equals(Buffer.from(want.y.buffer))).toBe(true);
    expect(got.coef).toEqual(want.coef);
    await expect(makeClassificationAsync({ nSamples: 10, nInformative: 1, nClasses: 3, seed: 0 })).rejects.toThrow('nClasses (3) must be <= 2^nInformative (2)');
  });
});

describe('dataset from an Arrow table', () => {
  const table = tableFromArrays({ a: new Float64Array([1, 2, 3, 4]), b: new Int32Array([10, 20, 30, 40]), label: ['no', 'yes', 'no', 'maybe'], s: ['x', 'y', 'z', 'w'] });

  it('reads features row-major and label-encodes the target in sorted order', () => {
    const ds = datasetFromArrow(table, { features: ['a', 'b'], target: 'label', task: 'classification' });
    expect(Array.from(ds.x)).toEqual([1, 10, 2, 20, 3, 30, 4, 40]);
    expect(ds.classes).toEqual(['maybe', 'no', 'yes']);
    expect(Array.from(ds.y)).toEqual([1, 2, 1, 0]);
  });

  it('names the wrong column', () => {
    expect(() => datasetFromArrow(table, { features: ['a', 'zz'], target: 'label', task: 'classification' })).toThrow("feature column 'zz' is not in the table (columns: a, b, label, s)");
    expect(() => datasetFromArrow(table, { features: ['s'], target: 'a', task: 'regression' })).toThrow(/feature column 's' has type Dictionary<Int32, Utf8>; tuning needs numbers/);
    expect(() => datasetFromArrow(table, { features: ['a'], target: 'label', task: 'regression' })).toThrow(/target column 'label'/);
    const withNull = tableFromArrays({ a: [1, null, 3] as unknown as Float64Array, y: new Float64Array([1, 2, 3]) });
    expect(() => datasetFromArrow(withNull, { features: ['a'], target: 'y', task: 'regression' })).toThrow("feature column 'a' has 1 missing values (first at row 1); drop or fill them first");
  });
});

describe('train / validation split', () => {
  const ds = makeClassification({ nSamples: 200, nFeatures: 3, nInformative: 2, nClasses: 2, flipY: 0, seed: 8 });

  it('partitions the rows, seeded', () => {
    const s = trainValidationSplit(ds, { validationFraction: 0.25, seed: 1 });
    expect(s.validation.nRows).toBe(50);
    expect(s.train.nRows).toBe(150);
    const key = (d: typeof ds, i: number) => Array.from(d.x.subarray(i * 3, i * 3 + 3)).join(',');
    const all = new Set(Array.from({ length: 200 }, (_, i) => key(ds, i)));
    const seen = [...Array.from({ length: 150 }, (_, i) => key(s.train, i)), ...Array.from({ length: 50 }, (_, i) => key(s.validation, i))];
    expect(new Set(seen)).toEqual(all);
    expect(trainValidationSplit(ds, { validationFraction: 0.25, seed: 1 }).validation.x).toEqual(s.validation.x);
    expect(trainValidationSplit(ds, { validationFraction: 0.25, seed: 2 }).validation.x).not.toEqual(s.validation.x);
  });

  it('stratified keeps class proportions exactly when they divide', () => {
    const unbalanced = { ...ds, y: ds.y.map((_, i) => (i < 40 ? 1 : 0)) };
    const s = trainValidationSplit(unbalanced, { validationFraction: 0.25, seed: 3, stratify: true });
    expect(s.validation.y.filter((v) => v === 1)).toHaveLength(10);
    expect(s.validation.y.filter((v) => v === 0)).toHaveLength(40);
  });

  it('refuses an empty part', () => {
    const tiny = { ...ds, nRows: 2, x: ds.x.subarray(0, 6), y: ds.y.subarray(0, 2) };
    expect(() => trainValidationSplit(tiny, { validationFraction: 0.9, seed: 0 })).toThrow(/leaves 0 training and 2 validation rows/);
  });
});
