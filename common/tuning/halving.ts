/**
 * One successive-halving bracket with dask-ml's semantics
 * (dask_ml/model_selection/_successive_halving.py `SuccessiveHalvingSearchCV._adapt`, and
 * `_incremental.py` `_IncrementalSearchCV._stop_on_plateau` for the max_iter rule).
 *
 * With n = n_initial_parameters, r = n_initial_iter, eta = aggressiveness, dask-ml trains every
 * model one partial_fit call, scores it, and then, at each decision k = 0, 1, 2, ...:
 *
 *   n_k = floor(n * eta^-k)          models kept (top n_k by their last score, ties to the
 *                                    earlier model; the rest are killed)
 *   r_k = round_half_even(r * eta^k) epochs each kept model trains to
 *   if r_k == 1 at k = 0 the first call already did that step: decide at k = 1 instead
 *   a kept model already at >= max_iter epochs gets no more (it stays, idle, and still ranks)
 *   the bracket ends when no kept model has epochs left to train (n_k = 0, or all at max_iter)
 *
 * Here an epoch plays the role of a partial_fit call. Decision k = 0 keeps every model and cannot
 * depend on the one-call scores unless r_0 = 1 or max_iter <= 1, so in every other case trials
 * start straight at r_0 epochs: the same trials, epochs and survivors, one report round fewer.
 * max_iter stops a model only once reached, as in dask-ml, so with r * eta^k not landing on
 * max_iter a last rung can overshoot it (r = 9, eta = 3, max_iter = 100 trains to 243).
 *
 * Worked case n = 81, r = 1, eta = 3, max_iter = 81 (Hyperband's bracket 4): all 81 train 1 epoch;
 * the best 27 go to 3; the best 9 to 9; the best 3 to 27; the best 1 to 81; n_5 = 0 ends it.
 * Epochs: 54*1 + 18*3 + 6*9 + 2*27 + 1*81 = 297.
 */
import { newTrialState, startCommand, topK, type NewTrial, type TrialGroup, type TrialState } from './group';
import type { TrialCommand } from './types';

export interface HalvingConfig {
  /** n_initial_parameters: the n of the formulas (even if fewer settings could be drawn). */
  n: number;
  /** n_initial_iter. */
  r: number;
  /** aggressiveness (eta), > 1. */
  eta: number;
  /** max_iter, or undefined for none. */
  maxIter?: number;
}

/** numpy's np.round: halves go to the even neighbour. */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

export function checkHalvingConfig(c: HalvingConfig): void {
  if (!Number.isInteger(c.n) || c.n < 1) throw new RangeError(`successive halving needs nInitialParameters >= 1, got ${c.n}`);
  if (!Number.isInteger(c.r) || c.r < 1) throw new RangeError(`successive halving needs nInitialIter a positive integer, got ${c.r}`);
  if (!(c.eta > 1) || !Number.isFinite(c.eta)) throw new RangeError(`aggressiveness must be a number > 1, got ${c.eta}`);
  if (c.maxIter !== undefined && (!Number.isInteger(c.maxIter) || c.maxIter < 1)) {
    throw new RangeError(`maxIter must be a positive integer, got ${c.maxIter}`);
  }
  // dask-ml recurses forever here (RecursionError): refuse it up front.
  if (roundHalfEven(c.r) === 1 && roundHalfEven(c.r * c.eta) === 1) {
    throw new RangeError(`nInitialIter=${c.r} with aggressiveness=${c.eta} never grows past 1 epoch; raise aggressiveness`);
  }
}

export class HalvingBracket implements TrialGroup {
  readonly trials: TrialState[];
  private steps = 0;
  private finished = false;
  /** Trials whose status is 'running', kept so a report does not scan every trial (issue 29). */
  private running = 0;

  constructor(
    readonly bracket: number,
    trials: NewTrial[],
    private readonly cfg: HalvingConfig,
  ) {
    checkHalvingConfig(cfg);
    this.trials = trials.map((t, i) => newTrialState(t, i, bracket));
  }

  get done(): boolean {
    return this.finished;
  }

  start(): TrialCommand[] {
    const { r, maxIter } = this.cfg;
    const r0 = roundHalfEven(r);
    // Decision 0 without scores (see the top comment): everyone to r_0.
    const skipFirstCall = r0 !== 1 && !(maxIter !== undefined && maxIter <= 1);
    for (const t of this.trials) t.target = skipFirstCall ? r0 : 1;
    if (skipFirstCall) this.steps = 1;
    if (this.trials.length === 0) this.finished = true;
    this.running = this.trials.length;
    return this.trials.map(startCommand);
  }

  report(trial: TrialState, score: number): TrialCommand[] {
    trial.score = score;
    trial.epochs = trial.target;
    trial.status = 'idle';
    this.running--;
    return this.maybeDecide();
  }

  fail(trial: TrialState, error: string): TrialCommand[] {
    trial.status = 'failed';
    trial.error = error;
    this.running--;
    return this.maybeDecide();
  }

  best(): TrialState | null {
    if (!this.finished) return null;
    return topK(this.live(), 1)[0] ?? null;
  }

  private live(): TrialState[] {
    return this.trials.filter((t) => t.status === 'running' || t.status === 'idle');
  }

  /** dask-ml gathers every outstanding score before adapting: decide once none is running. */
  private maybeDecide(): TrialCommand[] {
    if (this.finished || this.running > 0) return [];
    return this.decide();
  }

  private decide(): TrialCommand[] {
    const { n, r, eta, maxIter } = this.cfg;
    const live = this.live();
    if (live.length > 0 && live.every((t) => t.epochs === 1)) this.steps = 0;
    let rk = roundHalfEven(r * eta ** this.steps);
    if (rk === 1) {
      this.steps = 1;
      rk = roundHalfEven(r * eta ** this.steps);
    }
    const nk = Math.floor(n * eta ** -this.steps);
    const kept = topK(live, nk);
    this.steps += 1;

    const out: TrialCommand[] = [];
    // dask-ml: `if len(best) == 0: return {id_: 0 for id_ in info}`; nobody is killed, it ends.
    if (kept.length === 0) {
      this.finished = true;
      return out;
    }
    const keptIds = new Set(kept.map((t) => t.id));
    for (const t of live) {
      if (keptIds.has(t.id)) continue;
      t.status = 'halved';
      out.push({ kind: 'stop', trialId: t.id, reason: 'halved' });
    }
    for (const t of kept) {
      const reachedMax = maxIter !== undefined && t.epochs >= maxIter;
      if (reachedMax || rk <= t.epochs) continue;
      t.target = rk;
      t.status = 'running';
      this.running++;
      out.push({ kind: 'continue', trialId: t.id, epochs: rk });
    }
    if (this.running === 0) this.finished = true;
    return out;
  }
}
