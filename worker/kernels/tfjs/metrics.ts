/**
 * Validation metrics on plain arrays, as scikit-learn defines them (accuracy_score, log_loss,
 * mean_squared_error, r2_score). Class probabilities are row-major n x k; a binary model's single
 * sigmoid output is expanded to two columns by `binaryToTwoColumns` first.
 */

function checkLengths(name: string, n: number, m: number): void {
  if (n !== m) throw new RangeError(`${name}: ${n} targets but ${m} predictions`);
  if (n === 0) throw new RangeError(`${name}: no rows to score`);
}

/** p(class 1) per row -> [p0, p1] per row. */
export function binaryToTwoColumns(p1: Float32Array): Float32Array {
  const out = new Float32Array(p1.length * 2);
  for (let i = 0; i < p1.length; i++) {
    out[2 * i] = 1 - p1[i];
    out[2 * i + 1] = p1[i];
  }
  return out;
}

/** Fraction of rows whose most probable class (first on ties) is the true class index. */
export function accuracy(yTrue: ArrayLike<number>, probs: ArrayLike<number>, k: number): number {
  checkLengths('accuracy', yTrue.length, probs.length / k);
  let hits = 0;
  for (let i = 0; i < yTrue.length; i++) {
    let best = 0;
    for (let c = 1; c < k; c++) if (probs[i * k + c] > probs[i * k + best]) best = c;
    if (best === yTrue[i]) hits++;
  }
  return hits / yTrue.length;
}

/**
 * Mean negative log-likelihood of the true class. Rows are renormalised to sum to 1 and
 * probabilities clipped to [eps, 1 - eps] as sklearn's log_loss does (eps = float32 epsilon,
 * since models output float32).
 */
export function logLoss(yTrue: ArrayLike<number>, probs: ArrayLike<number>, k: number, eps = 1.1920929e-7): number {
  checkLengths('log-loss', yTrue.length, probs.length / k);
  let s = 0;
  for (let i = 0; i < yTrue.length; i++) {
    let row = 0;
    for (let c = 0; c < k; c++) row += Math.min(1 - eps, Math.max(eps, probs[i * k + c]));
    const p = Math.min(1 - eps, Math.max(eps, probs[i * k + yTrue[i]])) / row;
    s -= Math.log(p);
  }
  return s / yTrue.length;
}

export function meanSquaredError(yTrue: ArrayLike<number>, yPred: ArrayLike<number>): number {
  checkLengths('mse', yTrue.length, yPred.length);
  let s = 0;
  for (let i = 0; i < yTrue.length; i++) s += (yTrue[i] - yPred[i]) ** 2;
  return s / yTrue.length;
}

/** Coefficient of determination; a constant target scores 1 if predicted exactly, else 0 (sklearn). */
export function r2Score(yTrue: ArrayLike<number>, yPred: ArrayLike<number>): number {
  checkLengths('r2', yTrue.length, yPred.length);
  let mean = 0;
  for (let i = 0; i < yTrue.length; i++) mean += yTrue[i];
  mean /= yTrue.length;
  let res = 0;
  let tot = 0;
  for (let i = 0; i < yTrue.length; i++) {
    res += (yTrue[i] - yPred[i]) ** 2;
    tot += (yTrue[i] - mean) ** 2;
  }
  if (tot === 0) return res === 0 ? 1 : 0;
  return 1 - res / tot;
}
