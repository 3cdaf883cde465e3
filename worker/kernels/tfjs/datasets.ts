/**
 * Training data for tuning: a dense float32 feature matrix and a target, built from synthetic
 * generators (seeded, like scikit-learn's make_classification / make_regression, simplified) or
 * from columns of an Arrow table (a dataframe node's output; CSV reaches here the same way, parsed
 * into a table by the caller). No tfjs, so it is cheap to test and to run in any worker; the
 * synthetic rows' normals come from the addon's stream fill where it is loaded (native/philox-fill.ts:
 * the same bytes as the JS stream, several times faster on several threads).
 *
 * Each synthetic generator is written once, as a generator function that yields the stream blocks
 * it needs filled; makeX runs it with synchronous fills (tests, benches), makeXAsync with the
 * addon's fill off the JS thread, which workers use so they keep answering messages meanwhile.
 */
import * as arrow from 'apache-arrow';
import { PhiloxStream } from '../../../common/philox';
import { filledPermutation, fillStream, fillStreamAsync, uniformDraws, type StreamBlock } from '../../../native/philox-fill';
import { deriveSeed, indexOf, SeedTag, Uniforms } from '../../../common/tuning/random';
import type { Task } from '../../../common/tuning/trial';

export interface Dataset {
  task: Task;
  nRows: number;
  nFeatures: number;
  featureNames: string[];
  /** Row-major nRows x nFeatures. */
  x: Float32Array;
  /** Regression targets, or class indices 0 .. classes.length - 1. */
  y: Float32Array;
  /** Classification: the label of each class index (sorted). Empty for regression. */
  classes: (string | number)[];
}

export class DatasetError extends Error {
  override name = 'DatasetError';
}

function normals(seed: number, tag: number): PhiloxStream {
  return new PhiloxStream(deriveSeed(seed, SeedTag.data, tag), 'normal', 0, 1, false);
}

/** A block of the standard normal stream `tag` into out (at outOffset, rows outStride apart). */
interface NormalsFill {
  seed: number;
  tag: number;
  block: StreamBlock;
  out: Float32Array | Float64Array;
  outOffset: number;
  outStride: number;
  /** Block row r into out row rowMap[r] (native/philox-fill.ts). */
  rowMap?: Int32Array;
}

/** A generator's body: yields the fills it needs (each done before it resumes), returns the data. */
type Steps<T> = Generator<NormalsFill, T, void>;

function fillArgs(f: NormalsFill): Parameters<typeof fillStream> {
  return [{ seed: deriveSeed(f.seed, SeedTag.data, f.tag), dist: 'normal', a: 0, b: 1 }, f.block, f.out, f.outOffset, f.outStride, f.rowMap];
}

function runSync<T>(steps: Steps<T>): T {
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return r.value;
    fillStream(...fillArgs(r.value));
  }
}

async function runAsync<T>(steps: Steps<T>): Promise<T> {
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return r.value;
    await fillStreamAsync(...fillArgs(r.value));
  }
}

function checkCount(name: string, v: number, min: number): void {
  if (!Number.isInteger(v) || v < min) throw new DatasetError(`${name} must be an integer >= ${min}, got ${v}`);
}

/** Features and classes of a make_classification dataset, its defaults filled in (main plans with them too). */
export function classificationShape(o: Pick<ClassificationOptions, 'nFeatures' | 'nInformative' | 'nRedundant' | 'nClasses'>): { features: number; classes: number } {
  return { features: o.nFeatures ?? Math.max(20, (o.nInformative ?? 2) + (o.nRedundant ?? 0)), classes: o.nClasses ?? 2 };
}

/** Features of a make_regression dataset, its default filled in. */
export function regressionFeatures(o: { nFeatures?: number }): number {
  return o.nFeatures ?? 10;
}

export interface ClassificationOptions {
  nSamples: number;
  nFeatures?: number;
  /** Features that carry the signal; the rest are redundant (linear mixes of them) or noise. */
  nInformative?: number;
  nRedundant?: number;
  nClasses?: number;
  /** Distance of class centres from the origin on each informative axis (sklearn class_sep). */
  classSep?: number;
  /** Fraction of labels replaced by a random class (sklearn flip_y); forced to 0 when separable. */
  flipY?: number;
  /** Labels from a random linear rule (argmax of class scores), so a linear model can reach 100%; for two classes a gap of classSep is opened around the boundary. */
  linearlySeparable?: boolean;
  seed: number;
}

/**
 * make_classification, simplified: each class is a Gaussian cloud (unit variance) around a distinct
 * vertex of the hypercube [-classSep, classSep]^nInformative; classes are balanced; then redundant
 * features (random mixes of the informative ones) and pure noise features follow, in that column
 * order (sklearn shuffles columns; we do not, so the informative ones are known).
 */
export function makeClassification(o: ClassificationOptions): Dataset {
  return runSync(classificationSteps(o));
}

/** makeClassification with the large fills off the JS thread: the same bytes. */
export function makeClassificationAsync(o: ClassificationOptions): Promise<Dataset> {
  return runAsync(classificationSteps(o));
}

/**
 * Where the generated rows go: given the final labels (row order) and the class list, the output
 * row of each row (a permutation of 0 .. n - 1). A trial's split (split.ts) places its training
 * rows first and its validation rows after them, so the rows are generated where the split puts
 * them instead of copied there.
 */
export type PlaceRows = (y: Float32Array, classes: number[]) => Int32Array;

/** makeClassificationAsync with its rows in the order `place` gives (not for linearly separable sets: their labels come from the rows). */
export function makeClassificationPlacedAsync(o: ClassificationOptions, place: PlaceRows): Promise<Dataset> {
  if (o.linearlySeparable) throw new DatasetError('a linearly separable set labels its rows from their values; it cannot be placed before they are made');
  return runAsync(classificationSteps(o, place));
}

function* classificationSteps(o: ClassificationOptions, place?: PlaceRows): Steps<Dataset> {
  const n = o.nSamples;
  const nInf = o.nInformative ?? 2;
  const nRed = o.nRedundant ?? 0;
  const { features: d, classes: k } = classificationShape(o);
  const sep = o.classSep ?? 1;
  const flip = o.linearlySeparable ? 0 : (o.flipY ?? 0.01);
  checkCount('nSamples', n, 2);
  checkCount('nInformative', nInf, 1);
  checkCount('nRedundant', nRed, 0);
  checkCount('nClasses', k, 2);
  if (d < nInf + nRed) throw new DatasetError(`nFeatures (${d}) must be >= nInformative + nRedundant (${nInf + nRed})`);
  if (!o.linearlySeparable && k > 2 ** nInf) throw new DatasetError(`nClasses (${k}) must be <= 2^nInformative (${2 ** nInf})`);
  if (!(flip >= 0 && flip <= 1)) throw new DatasetError(`flipY must be in [0, 1], got ${flip}`);

  const classes = Array.from({ length: k }, (_, c) => c);
  const x = new Float32Array(n * d);
  const y = new Float32Array(n);
  const label = filledPermutation(n, deriveSeed(o.seed, SeedTag.data, 3));
  for (let i = 0; i < n; i++) y[i] = label[i] % k;
  if (flip > 0) {
    // Row i's flip and new class: Uniforms.at(2i), at(2i + 1). The class vertex below stays the
    // label's before the flip (label[i] % k).
    const u = uniformDraws(deriveSeed(o.seed, SeedTag.data, 2), 0, 2 * n);
    for (let i = 0; i < n; i++) if (u[2 * i] < flip) y[i] = indexOf(u[2 * i + 1], k);
  }
  // Output row of each row: the labels are final here (except a separable set's, never placed).
  const map = place ? place(y, classes) : undefined;
  const at = map ? (i: number) => map[i] * d : (i: number) => i * d;
  // The noise features straight into x (most of 60 000 x 784's values: 720 of each row's 784),
  // first: the fill's threads touch x's fresh pages, which the JS loops below would otherwise
  // fault in one by one (0.1-0.2 s at that size here). No value depends on another's order.
  const first = nInf + nRed;
  yield { seed: o.seed, tag: 1, block: { start: first, rows: n, cols: d - first, stride: d }, out: x, outOffset: first, outStride: d, rowMap: map };

  if (o.linearlySeparable) {
    const z = normals(o.seed, 1); // element by element: a few informative values a row
    const w = normals(o.seed, 4); // class weight vectors, k x nInf
    const wn = Math.sqrt(Array.from({ length: nInf }, (_, j) => (w.at(j) - w.at(nInf + j)) ** 2).reduce((a, b) => a + b, 0)) || 1;
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bestScore = -Infinity;
      for (let c = 0; c < k; c++) {
        let s = 0;
        for (let j = 0; j < nInf; j++) s += w.at(c * nInf + j) * z.at(i * d + j);
        if (s > bestScore) [best, bestScore] = [c, s];
      }
      y[i] = best;
      for (let j = 0; j < nInf; j++) {
        // Two classes: push each point classSep/2 away from the boundary along its normal.
        const push = k === 2 ? ((best === 0 ? 1 : -1) * (sep / 2) * (w.at(j) - w.at(nInf + j))) / wn : 0;
        x[i * d + j] = z.at(i * d + j) + push;
      }
    }
  } else {
    // Distinct hypercube vertices for the classes: a seeded choice among 2^nInf.
    const vertices = filledPermutation(2 ** Math.min(nInf, 20), deriveSeed(o.seed, SeedTag.data, 5));
    // The informative block in float64 (the shift is added before the one rounding to float32).
    const inf = new Float64Array(n * nInf);
    yield { seed: o.seed, tag: 1, block: { start: 0, rows: n, cols: nInf, stride: d }, out: inf, outOffset: 0, outStride: nInf };
    for (let i = 0; i < n; i++) {
      const v = vertices[label[i] % k];
      const row = at(i);
      for (let j = 0; j < nInf; j++) x[row + j] = inf[i * nInf + j] + ((v >> j) & 1 ? sep : -sep);
    }
  }
  const mix = new Uniforms(deriveSeed(o.seed, SeedTag.data, 6)); // redundant = informative @ B, B ~ U(-1, 1)
  for (let i = 0; i < n; i++) {
    const row = at(i);
    for (let r = 0; r < nRed; r++) {
      let s = 0;
      for (let j = 0; j < nInf; j++) s += x[row + j] * (2 * mix.at(r * nInf + j) - 1);
      x[row + nInf + r] = s;
    }
  }
  let yOut = y;
  if (map) {
    yOut = new Float32Array(n);
    for (let i = 0; i < n; i++) yOut[map[i]] = y[i];
  }
  return { task: 'classification', nRows: n, nFeatures: d, featureNames: names(d), x, y: yOut, classes };
}

export interface RegressionOptions {
  nSamples: number;
  nFeatures?: number;
  nInformative?: number;
  /** Standard deviation of Gaussian noise added to the target. */
  noise?: number;
  bias?: number;
  seed: number;
}

/**
 * make_regression, simplified: X ~ N(0, 1); the informative features (the first nInformative)
 * get coefficients 100 * U(0, 1], the rest 0; y = X coef + bias + noise * N(0, 1).
 * Returns the true coefficients too.
 */
export function makeRegression(o: RegressionOptions): Dataset & { coef: Float64Array } {
  return runSync(regressionSteps(o));
}

/** makeRegression with the large fills off the JS thread: the same bytes. */
export function makeRegressionAsync(o: RegressionOptions): Promise<Dataset & { coef: Float64Array }> {
  return runAsync(regressionSteps(o));
}

function* regressionSteps(o: RegressionOptions): Steps<Dataset & { coef: Float64Array }> {
  const n = o.nSamples;
  const d = regressionFeatures(o);
  const nInf = Math.min(o.nInformative ?? 10, d);
  const noise = o.noise ?? 0;
  checkCount('nSamples', n, 2);
  checkCount('nFeatures', d, 1);
  if (!(noise >= 0)) throw new DatasetError(`noise must be >= 0, got ${noise}`);
  const cu = new Uniforms(deriveSeed(o.seed, SeedTag.data, 13));
  const coef = new Float64Array(d);
  for (let j = 0; j < nInf; j++) coef[j] = 100 * cu.at(j);
  const x = new Float32Array(n * d);
  const y = new Float32Array(n);
  const e = new Float64Array(n);
  yield { seed: o.seed, tag: 12, block: { start: 0, rows: 1, cols: n, stride: n }, out: e, outOffset: 0, outStride: n };
  // X in float64 a block of rows at a time (y sums the unrounded values), about 1 M values each.
  const step = Math.max(1, Math.floor(2 ** 20 / d));
  const z = new Float64Array(Math.min(n, step) * d);
  for (let i0 = 0; i0 < n; i0 += step) {
    const rows = Math.min(step, n - i0);
    yield { seed: o.seed, tag: 11, block: { start: i0 * d, rows: 1, cols: rows * d, stride: rows * d }, out: z, outOffset: 0, outStride: rows * d };
    for (let i = i0; i < i0 + rows; i++) {
      let s = o.bias ?? 0;
      for (let j = 0; j < d; j++) {
        const v = z[(i - i0) * d + j];
        x[i * d + j] = v;
        s += coef[j] * v;
      }
      y[i] = s + noise * e[i];
    }
  }
  return { task: 'regression', nRows: n, nFeatures: d, featureNames: names(d), x, y, classes: [], coef };
}

function names(d: number): string[] {
  return Array.from({ length: d }, (_, j) => `x${j}`);
}

function numericColumn(table: arrow.Table, name: string, role: string): Float64Array {
  const v = table.getChild(name);
  if (!v) throw new DatasetError(`${role} column '${name}' is not in the table (columns: ${table.schema.fields.map((f) => f.name).join(', ')})`);
  if (!(arrow.DataType.isFloat(v.type) || arrow.DataType.isInt(v.type) || arrow.DataType.isBool(v.type))) {
    throw new DatasetError(`${role} column '${name}' has type ${String(v.type)}; tuning needs numbers`);
  }
  checkNulls(v, name, role);
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const val: unknown = v.get(i);
    out[i] = Number(val); // int64 arrives as bigint, bool as boolean
    if (!Number.isFinite(out[i])) throw new DatasetError(`${role} column '${name}' row ${i}: ${String(val)} is not a finite number`);
  }
  return out;
}

function checkNulls(v: arrow.Vector, name: string, role: string): void {
  if (v.nullCount === 0) return;
  let first = 0;
  while (v.isValid(first)) first++;
  throw new DatasetError(`${role} column '${name}' has ${v.nullCount} missing values (first at row ${first}); drop or fill them first`);
}

/** A dataset from `features` and `target` columns of a table. Class labels are sorted. */
export function datasetFromArrow(table: arrow.Table, o: { features: string[]; target: string; task: Task }): Dataset {
  if (o.features.length === 0) throw new DatasetError('features: choose at least one feature column');
  if (o.features.includes(o.target)) throw new DatasetError(`target column '${o.target}' is also listed as a feature`);
  const n = table.numRows;
  if (n < 2) throw new DatasetError(`the table has ${n} rows; tuning needs at least 2`);
  const d = o.features.length;
  const x = new Float32Array(n * d);
  o.features.forEach((name, j) => {
    const col = numericColumn(table, name, 'feature');
    for (let i = 0; i < n; i++) x[i * d + j] = col[i];
  });
  const y = new Float32Array(n);
  if (o.task === 'regression') {
    y.set(numericColumn(table, o.target, 'target'));
    return { task: 'regression', nRows: n, nFeatures: d, featureNames: [...o.features], x, y, classes: [] };
  }
  const v = table.getChild(o.target);
  if (!v) throw new DatasetError(`target column '${o.target}' is not in the table`);
  checkNulls(v, o.target, 'target');
  const raw: (string | number)[] = [];
  for (let i = 0; i < n; i++) {
    const val: unknown = v.get(i);
    raw.push(typeof val === 'bigint' ? Number(val) : typeof val === 'boolean' ? Number(val) : (val as string | number));
  }
  const numeric = raw.every((r) => typeof r === 'number');
  const classes = [...new Set(raw)].sort((a, b) => (numeric ? (a as number) - (b as number) : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
  if (classes.length < 2) throw new DatasetError(`target column '${o.target}' has ${classes.length} class; classification needs at least 2`);
  const index = new Map(classes.map((c, i) => [c, i]));
  for (let i = 0; i < n; i++) y[i] = index.get(raw[i]) ?? 0;
  return { task: 'classification', nRows: n, nFeatures: d, featureNames: [...o.features], x, y, classes };
}

/** The rows `idx` of a dataset, in that order. */
export function takeRows(ds: Dataset, idx: ArrayLike<number>): Dataset {
  const d = ds.nFeatures;
  const x = new Float32Array(idx.length * d);
  const y = new Float32Array(idx.length);
  for (let r = 0; r < idx.length; r++) {
    x.set(ds.x.subarray(idx[r] * d, idx[r] * d + d), r * d);
    y[r] = ds.y[idx[r]];
  }
  return { ...ds, nRows: idx.length, x, y };
}
