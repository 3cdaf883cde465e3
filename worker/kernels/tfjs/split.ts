/**
 * Train / validation split, seeded (scikit-learn ShuffleSplit order: the first ceil(f * n) rows of
 * a seeded permutation are the validation set). Stratified: the same per class, with
 * round(f * n_c) validation rows of class c (simpler than sklearn's _approximate_mode, same intent:
 * class proportions kept in both parts).
 */
import { traceStart } from '../../../common/start-trace';
import { deriveSeed, SeedTag } from '../../../common/tuning/random';
import { filledPermutation } from '../../../native/philox-fill';
import { DatasetError, makeClassificationAsync, makeClassificationPlacedAsync, takeRows, type ClassificationOptions, type Dataset } from './datasets';

export interface SplitOptions {
  /** Fraction of rows held out for validation, in (0, 1). */
  validationFraction: number;
  seed: number;
  /** Keep class proportions (classification only). */
  stratify?: boolean;
}

export function trainValidationSplit(ds: Dataset, o: SplitOptions): { train: Dataset; validation: Dataset } {
  const { train, validation } = splitRows(ds, o);
  return { train: takeRows(ds, train), validation: takeRows(ds, validation) };
}

/**
 * trainValidationSplit(makeClassification(o), split), bit for bit, without the copy: the rows are
 * generated where the split puts them (the training rows, then the validation rows, in one
 * buffer that both parts view), since the split needs only the labels, known before the rows.
 * A search trial's rows (search-tasks.ts): at 60 000 x 784 the copy was 188 MB of fresh pages
 * filled on the JS thread. A linearly separable set's labels come from its rows: generated, then
 * split.
 */
export async function makeClassificationSplitAsync(o: ClassificationOptions, split: SplitOptions): Promise<{ train: Dataset; validation: Dataset }> {
  if (o.linearlySeparable) return trainValidationSplit(await makeClassificationAsync(o), split);
  let nTrain = 0;
  const ds = await makeClassificationPlacedAsync(o, (y, classes) => {
    const parts = splitRows({ task: 'classification', nRows: y.length, y, classes }, split);
    nTrain = parts.train.length;
    const map = placement(y.length, parts);
    // Labels and split done; the fills and the informative columns follow (docs/tuning.md).
    traceStart('worker-trial-data-placed');
    return map;
  });
  return { train: rowRange(ds, 0, nTrain), validation: rowRange(ds, nTrain, ds.nRows) };
}

/** Output row of each row: the training rows first, in their order, then the validation rows. */
function placement(n: number, parts: { train: Int32Array; validation: Int32Array }): Int32Array {
  // Every generated label is a class, so the two parts hold every row once.
  if (parts.train.length + parts.validation.length !== n) throw new Error(`the split placed ${parts.train.length + parts.validation.length} of ${n} rows`);
  const map = new Int32Array(n);
  parts.train.forEach((row, r) => (map[row] = r));
  parts.validation.forEach((row, r) => (map[row] = parts.train.length + r));
  return map;
}

/** Rows a .. b - 1 of a dataset, as views of its arrays. */
function rowRange(ds: Dataset, a: number, b: number): Dataset {
  const d = ds.nFeatures;
  return { ...ds, nRows: b - a, x: ds.x.subarray(a * d, b * d), y: ds.y.subarray(a, b) };
}

/**
 * The rows of each part, in the order they take there. Typed arrays and the permutations' draws
 * from the addon's fill (filledPermutation: the same orders as common/tuning/random.ts's): the
 * MNIST-shaped example's 60 000 rows went through per-element arrays before.
 */
export function splitRows(ds: Pick<Dataset, 'task' | 'nRows' | 'y' | 'classes'>, o: SplitOptions): { train: Int32Array; validation: Int32Array } {
  const f = o.validationFraction;
  if (!(f > 0 && f < 1)) throw new DatasetError(`validationFraction must be in (0, 1), got ${f}`);
  if (o.stratify && ds.task !== 'classification') throw new DatasetError('stratify needs a classification target');
  const seed = deriveSeed(o.seed, SeedTag.split);
  let val: Int32Array;
  let train: Int32Array;
  if (o.stratify) {
    // Each class's rows in row order (a counting sort; rows whose target is no class index are in
    // neither part), then per class its first round(f * n_c) rows in the class's permutation to
    // validation, the rest to training, class after class.
    const k = ds.classes.length;
    const start = new Int32Array(k + 1);
    for (let i = 0; i < ds.nRows; i++) if (isClass(ds.y[i], k)) start[ds.y[i] + 1]++;
    for (let c = 0; c < k; c++) start[c + 1] += start[c];
    const rows = new Int32Array(start[k]);
    const at = start.slice(0, k);
    for (let i = 0; i < ds.nRows; i++) if (isClass(ds.y[i], k)) rows[at[ds.y[i]]++] = i;
    let nv = 0;
    for (let c = 0; c < k; c++) nv += Math.round(f * (start[c + 1] - start[c]));
    val = new Int32Array(nv);
    train = new Int32Array(rows.length - nv);
    let v = 0;
    let t = 0;
    for (let c = 0; c < k; c++) {
      const m = start[c + 1] - start[c];
      const p = filledPermutation(m, deriveSeed(seed, c));
      const nvc = Math.round(f * m);
      for (let r = 0; r < m; r++) {
        const row = rows[start[c] + p[r]];
        if (r < nvc) val[v++] = row;
        else train[t++] = row;
      }
    }
  } else {
    const p = filledPermutation(ds.nRows, seed);
    const nv = Math.ceil(f * ds.nRows);
    val = p.subarray(0, nv);
    train = p.subarray(nv);
  }
  if (val.length === 0 || train.length === 0) {
    throw new DatasetError(`validationFraction ${f} of ${ds.nRows} rows leaves ${train.length} training and ${val.length} validation rows; both need at least one`);
  }
  return { train, validation: val };
}

// Whether a target value is a class index (the stratified split's old per-class scan `y === c`).
const isClass = (y: number, k: number): boolean => Number.isInteger(y) && y >= 0 && y < k;
