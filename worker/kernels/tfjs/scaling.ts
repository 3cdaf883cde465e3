/**
 * Standardisation fitted on a trial's training rows: features to zero mean and unit variance, and
 * a regression target likewise, so one learning rate suits data of any scale (make_regression's
 * targets are in the hundreds). Saved with the model, applied again at predict time.
 */
import * as z from 'zod';
import { columnMoments, scaleColumns } from '../../../native/column-moments';
import type { Dataset } from './datasets';

export interface Scaler {
  xMean: number[];
  xStd: number[];
  /** Regression only; 0 and 1 for classification. */
  yMean: number;
  yStd: number;
}

export const scalerSchema = z.object({
  xMean: z.array(z.number()),
  xStd: z.array(z.number().positive()),
  yMean: z.number(),
  yStd: z.number().positive(),
});

// A constant column stays as it is (scale 1) instead of dividing by zero.
const spread = (s: number): number => (s > 1e-12 ? s : 1);

// Fitted once per Dataset object: every trial of a worker's search fits the same training rows
// (the data are cached per spec, search-tasks.ts), 48 000 x 784 of them in the MNIST-shaped
// example, and the fit was most of a GPU worker's first trial's set-up (docs/tuning.md).
const fitted = new WeakMap<Dataset, Scaler>();

/**
 * Mean and population standard deviation of each feature (and of a regression target), the
 * features' sums down the rows in row order (native/column-moments.ts: on every core where the
 * addon has it, else in JS; the same doubles either way, those of a column-by-column loop).
 */
export function fitScaler(ds: Dataset): Scaler {
  let s = fitted.get(ds);
  if (!s) {
    s = computeScaler(ds);
    fitted.set(ds, s);
  }
  // A copy: the scaler goes into each trial's model metadata.
  return { xMean: [...s.xMean], xStd: [...s.xStd], yMean: s.yMean, yStd: s.yStd };
}

function computeScaler(ds: Dataset): Scaler {
  const n = ds.nRows;
  const { mean, sq } = columnMoments(ds.x, n, ds.nFeatures);
  const xStd = Array.from(sq, (v) => spread(Math.sqrt(v / n)));
  let yMean = 0;
  let yStd = 1;
  if (ds.task === 'regression') {
    for (let i = 0; i < n; i++) yMean += ds.y[i];
    yMean /= n;
    let v = 0;
    for (let i = 0; i < n; i++) v += (ds.y[i] - yMean) ** 2;
    yStd = spread(Math.sqrt(v / n));
  }
  return { xMean: Array.from(mean), xStd, yMean, yStd };
}

/** The features standardised (native/column-moments.ts: on every core where the addon has it, the same bytes). */
export function scaleX(s: Scaler, x: Float32Array, nRows: number): Float32Array {
  const d = s.xMean.length;
  if (x.length !== nRows * d) throw new RangeError(`expected ${nRows} x ${d} features, got ${x.length} values`);
  return scaleColumns(x, nRows, d, s.xMean, s.xStd);
}

// The last scaling of each Dataset object: a trial scores its validation rows after every epoch
// with one scaler (12 000 x 784 of them in the MNIST-shaped example, 47 ms a time here).
const scaled = new WeakMap<Dataset, { scaler: string; x: Float32Array }>();

/**
 * scaleX of a data set's features, kept with the Dataset for the last scaler asked, so the
 * validation rows are scaled once per trial instead of every epoch. The array is shared: read it,
 * never write it.
 */
export function scaledFeatures(s: Scaler, ds: Dataset): Float32Array {
  const key = JSON.stringify(s);
  const hit = scaled.get(ds);
  if (hit?.scaler === key) return hit.x;
  const x = scaleX(s, ds.x, ds.nRows);
  scaled.set(ds, { scaler: key, x });
  return x;
}

export function scaleY(s: Scaler, y: Float32Array): Float32Array {
  return y.map((v) => (v - s.yMean) / s.yStd);
}

export function unscaleY(s: Scaler, y: Float32Array): Float32Array {
  return y.map((v) => v * s.yStd + s.yMean);
}
