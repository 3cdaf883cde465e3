/**
 * Train / validation split, seeded (scikit-learn ShuffleSplit order: the first ceil(f * n) rows of
 * a seeded permutation are the validation set). Stratified: the same per class, with
 * round(f * n_c) validation rows of class c (simpler than sklearn's _approximate_mode, same intent:
 * class proportions kept in both parts).
 */
import { deriveSeed, permutation, SeedTag } from '../../../common/tuning/random';
import { DatasetError, takeRows, type Dataset } from './datasets';

export interface SplitOptions {
  /** Fraction of rows held out for validation, in (0, 1). */
  validationFraction: number;
  seed: number;
  /** Keep class proportions (classification only). */
  stratify?: boolean;
}

export function trainValidationSplit(ds: Dataset, o: SplitOptions): { train: Dataset; validation: Dataset } {
  const f = o.validationFraction;
  if (!(f > 0 && f < 1)) throw new DatasetError(`validationFraction must be in (0, 1), got ${f}`);
  if (o.stratify && ds.task !== 'classification') throw new DatasetError('stratify needs a classification target');
  const seed = deriveSeed(o.seed, SeedTag.split);
  const val: number[] = [];
  const train: number[] = [];
  if (o.stratify) {
    for (let c = 0; c < ds.classes.length; c++) {
      const rows: number[] = [];
      for (let i = 0; i < ds.nRows; i++) if (ds.y[i] === c) rows.push(i);
      const p = permutation(rows.length, deriveSeed(seed, c));
      const nv = Math.round(f * rows.length);
      p.forEach((k, r) => (r < nv ? val : train).push(rows[k]));
    }
  } else {
    const p = permutation(ds.nRows, seed);
    const nv = Math.ceil(f * ds.nRows);
    p.forEach((k, r) => (r < nv ? val : train).push(k));
  }
  if (val.length === 0 || train.length === 0) {
    throw new DatasetError(`validationFraction ${f} of ${ds.nRows} rows leaves ${train.length} training and ${val.length} validation rows; both need at least one`);
  }
  return { train: takeRows(ds, train), validation: takeRows(ds, val) };
}
