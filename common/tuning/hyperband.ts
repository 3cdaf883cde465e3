/**
 * Hyperband's brackets, exactly as dask-ml computes them
 * (dask_ml/model_selection/_hyperband.py, `_get_hyperband_params`):
 *
 *   s_max = floor(log(R) / log(eta))          R = max_iter, eta = aggressiveness
 *   B     = (s_max + 1) * R
 *   for s = s_max, s_max - 1, ..., 0:         (bracket id s; higher = more adaptive)
 *     n_s = ceil(B / R * eta^s / (s + 1))     trials started in bracket s
 *     r_s = floor(R * eta^-s)                 their first epoch budget
 *
 * Each bracket then runs successive halving (common/tuning/halving.ts) with n_initial_parameters
 * = n_s, n_initial_iter = r_s, aggressiveness = eta and max_iter = R.
 *
 * Worked case, R = 81, eta = 3: s_max = 4, B = 405, brackets (s: n, r) =
 * 4: (81, 1), 3: (34, 3), 2: (15, 9), 1: (8, 27), 0: (5, 81); 143 trials in all.
 *
 * One deliberate difference: dask-ml takes s_max = floor(math.log(R, eta)) in floating point, which
 * is one too small when the quotient of logs rounds below an exact power. With glibc that happens
 * for (R, eta) = (243, 3), (1000, 10), (59049, 3), (59049, 9) and for no other R <= 100000,
 * eta <= 10 (checked with CPython 3); V8's Math.log rounds differently, so copying the float
 * expression would not reproduce it anyway. We take s_max exactly (largest s with eta^s <= R), the
 * paper's definition; only those four plans differ from dask-ml's, by one extra bracket.
 */

export interface HyperbandBracket {
  bracket: number;
  /** n_s: trials started. */
  nModels: number;
  /** r_s: epochs before the first halving decision. */
  initialIter: number;
}

export function hyperbandBrackets(maxIter: number, aggressiveness: number): HyperbandBracket[] {
  if (!Number.isInteger(maxIter) || maxIter < 1) throw new RangeError(`hyperband maxIter must be a positive integer, got ${maxIter}`);
  if (!Number.isInteger(aggressiveness) || aggressiveness < 2) {
    throw new RangeError(`hyperband aggressiveness must be an integer >= 2, got ${aggressiveness}`);
  }
  const R = maxIter;
  const eta = aggressiveness;
  let sMax = 0;
  while (eta ** (sMax + 1) <= R) sMax++;
  const B = (sMax + 1) * R;
  const out: HyperbandBracket[] = [];
  for (let s = sMax; s >= 0; s--) {
    out.push({
      bracket: s,
      nModels: Math.ceil(((B / R) * eta ** s) / (s + 1)),
      initialIter: Math.trunc(R * eta ** -s),
    });
  }
  return out;
}
