/**
 * Standardisation fitted on a trial's training rows: features to zero mean and unit variance, and
 * a regression target likewise, so one learning rate suits data of any scale (make_regression's
 * targets are in the hundreds). Saved with the model, applied again at predict time.
 */
import * as z from 'zod';
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

function meanStd(values: (i: number) => number, n: number): [number, number] {
  let m = 0;
  for (let i = 0; i < n; i++) m += values(i);
  m /= n;
  let v = 0;
  for (let i = 0; i < n; i++) v += (values(i) - m) ** 2;
  const s = Math.sqrt(v / n);
  // A constant column stays as it is (scale 1) instead of dividing by zero.
  return [m, s > 1e-12 ? s : 1];
}

export function fitScaler(ds: Dataset): Scaler {
  const d = ds.nFeatures;
  const xMean: number[] = [];
  const xStd: number[] = [];
  for (let j = 0; j < d; j++) {
    const [m, s] = meanStd((i) => ds.x[i * d + j], ds.nRows);
    xMean.push(m);
    xStd.push(s);
  }
  const [yMean, yStd] = ds.task === 'regression' ? meanStd((i) => ds.y[i], ds.nRows) : [0, 1];
  return { xMean, xStd, yMean, yStd };
}

export function scaleX(s: Scaler, x: Float32Array, nRows: number): Float32Array {
  const d = s.xMean.length;
  if (x.length !== nRows * d) throw new RangeError(`expected ${nRows} x ${d} features, got ${x.length} values`);
  const out = new Float32Array(x.length);
  for (let i = 0; i < nRows; i++) for (let j = 0; j < d; j++) out[i * d + j] = (x[i * d + j] - s.xMean[j]) / s.xStd[j];
  return out;
}

export function scaleY(s: Scaler, y: Float32Array): Float32Array {
  return y.map((v) => (v - s.yMean) / s.yStd);
}

export function unscaleY(s: Scaler, y: Float32Array): Float32Array {
  return y.map((v) => v * s.yStd + s.yMean);
}
