// The trial scaler: fitted once per Dataset object and read in row order (scaling.ts), yet the
// same numbers, bit for bit, as the column-by-column definition below (the fit before that
// change); scaled features kept per data set for its last scaler.
import { describe, expect, it } from 'vitest';
import type { Dataset } from '../../../worker/kernels/tfjs/datasets';
import { fitScaler, scaledFeatures, scaleX } from '../../../worker/kernels/tfjs/scaling';

function dataset(task: Dataset['task'], x: number[][], y: number[]): Dataset {
  const d = x[0].length;
  return { task, nRows: x.length, nFeatures: d, featureNames: x[0].map((_, j) => `f${j}`), x: Float32Array.from(x.flat()), y: Float32Array.from(y), classes: task === 'classification' ? [0, 1] : [] };
}

/** Mean and population std of one column, summed down the rows in order (the definition). */
function columnStats(v: (i: number) => number, n: number): [number, number] {
  let m = 0;
  for (let i = 0; i < n; i++) m += v(i);
  m /= n;
  let s = 0;
  for (let i = 0; i < n; i++) s += (v(i) - m) ** 2;
  const sd = Math.sqrt(s / n);
  return [m, sd > 1e-12 ? sd : 1];
}

// A fixed pseudo-random generator (LCG) so the rows are the same every run.
function rows(n: number, d: number): number[][] {
  let s = 12345;
  const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 200 - 100;
  return Array.from({ length: n }, () => Array.from({ length: d }, next));
}

describe('fitScaler', () => {
  it('gives hand-computed means and population deviations, 1 for a constant column', () => {
    const s = fitScaler(dataset('regression', [[1, 10, 0], [3, 10, 4], [5, 10, 8]], [2, 4, 6]));
    expect(s.xMean).toEqual([3, 10, 4]);
    expect(s.xStd).toEqual([Math.sqrt(8 / 3), 1, Math.sqrt(32 / 3)]);
    expect([s.yMean, s.yStd]).toEqual([4, Math.sqrt(8 / 3)]);
    const c = fitScaler(dataset('classification', [[1], [3]], [0, 1]));
    expect([c.yMean, c.yStd]).toEqual([0, 1]);
  });

  it('equals the column-by-column definition to the bit on 1 001 x 37 rows of mixed scale', () => {
    const x = rows(1001, 37);
    for (const r of x) r[5] = 7.25; // a constant column
    const ds = dataset('regression', x, x.map((r) => r[0] * 1000 + r[1]));
    const s = fitScaler(ds);
    for (let j = 0; j < 37; j++) {
      const [m, sd] = columnStats((i) => ds.x[i * 37 + j], ds.nRows);
      expect([s.xMean[j], s.xStd[j]], `column ${j}`).toEqual([m, sd]);
    }
    expect([s.yMean, s.yStd]).toEqual(columnStats((i) => ds.y[i], ds.nRows));
  });

  it('fits a Dataset object once: a later fit returns the first fit, as its own copy', () => {
    const ds = dataset('classification', [[1, 2], [3, 6]], [0, 1]);
    const first = fitScaler(ds);
    // A Dataset's rows never change after it is built; a changed one shows the fit is not redone.
    ds.x[0] = 100;
    first.xMean[0] = -1;
    const second = fitScaler(ds);
    expect(second.xMean).toEqual([2, 4]);
    expect(second.xStd).toEqual([1, 2]);
    expect(second).not.toBe(first);
  });
});

describe('scaledFeatures', () => {
  it('is scaleX of the rows, computed once per data set and scaler, again for another scaler', () => {
    const ds = dataset('classification', [[1, 2], [3, 6], [5, 10]], [0, 1, 0]);
    const s = fitScaler(ds);
    const a = scaledFeatures(s, ds);
    expect(Array.from(a)).toEqual(Array.from(scaleX(s, ds.x, ds.nRows)));
    expect(Array.from(a)).toEqual([-1, -1, 0, 0, 1, 1].map((v) => Math.fround(v * Math.sqrt(3 / 2))));
    expect(scaledFeatures({ ...s, xMean: [...s.xMean], xStd: [...s.xStd] }, ds)).toBe(a);
    const other = { ...s, xMean: [0, 0], xStd: [1, 2] };
    expect(Array.from(scaledFeatures(other, ds))).toEqual([1, 1, 3, 3, 5, 5]);
  });
});
