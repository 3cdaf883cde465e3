/**
 * The search loop as a pure, synchronous state machine: the main process asks `next()` for
 * commands (start a trial with params and an epoch budget, continue a trial to N epochs, stop a
 * trial), runs them on workers, and feeds back `report(trialId, epochs, score)` or
 * `fail(trialId, error)`. No timers, no I/O, no tfjs: tests drive it with made-up scores.
 *
 * Methods: grid and random (every trial trains `epochs` once, common/tuning/fixed.ts);
 * successive halving (one bracket, common/tuning/halving.ts) and Hyperband (brackets from
 * common/tuning/hyperband.ts, run side by side, most adaptive first, as dask-ml does).
 *
 * Reproducibility: trial i of bracket b gets seed deriveSeed(seed, trial, b, i) and its params
 * from the space with a bracket sub-seed, so one seed fixes every trial's params, initial weights,
 * batch order and dropout masks, whatever the order reports arrive in. Decisions wait for every
 * outstanding score of a bracket (as dask-ml gathers them), so arrival order never matters.
 *
 * Example (grid of two learning rates, 5 epochs):
 *   const c = new SearchController({ method: 'grid', space, epochs: 5, seed: 1 });
 *   c.next()            -> [start t0 {lr: 0.01} to 5, start t1 {lr: 0.1} to 5]
 *   c.report('t0', 5, 0.8); c.report('t1', 5, 0.9)
 *   c.next()            -> [stop t0 finished, stop t1 best];  c.done === true
 */
import { FixedBudgetGroup } from './fixed';
import { scoreKey, type NewTrial, type TrialGroup, type TrialState } from './group';
import { HalvingBracket } from './halving';
import { hyperbandBrackets } from './hyperband';
import { deriveSeed, SeedTag } from './random';
import { expandGrid, gridSize, sampleParams } from './space';
import type { LeaderboardEntry, SearchSpec, TrialCommand, TrialParams } from './types';

export class SearchError extends Error {
  override name = 'SearchError';
}

function trials(spec: SearchSpec, bracket: number, params: TrialParams[], prefix: string): NewTrial[] {
  return params.map((p, i) => ({ id: `${prefix}${i}`, params: p, seed: deriveSeed(spec.seed, SeedTag.trial, bracket, i) }));
}

function positiveInt(v: number, name: string): void {
  if (!Number.isInteger(v) || v < 1) throw new SearchError(`${name} must be a positive integer, got ${v}`);
}

function buildGroups(spec: SearchSpec): TrialGroup[] {
  switch (spec.method) {
    case 'grid':
      positiveInt(spec.epochs, 'epochs');
      return [new FixedBudgetGroup(trials(spec, 0, expandGrid(spec.space), 't'), spec.epochs)];
    case 'random':
      positiveInt(spec.epochs, 'epochs');
      return [new FixedBudgetGroup(trials(spec, 0, sampleParams(spec.space, spec.nTrials, spec.seed), 't'), spec.epochs)];
    case 'successive-halving': {
      const nInit = spec.nInitialParameters;
      const n = nInit === 'grid' ? gridSize(spec.space) : nInit;
      const params = nInit === 'grid' ? expandGrid(spec.space) : sampleParams(spec.space, n, spec.seed);
      const cfg = { n, r: spec.nInitialIter, eta: spec.aggressiveness, maxIter: spec.maxIter };
      return [new HalvingBracket(0, trials(spec, 0, params, 't'), cfg)];
    }
    case 'hyperband':
      return hyperbandBrackets(spec.maxIter, spec.aggressiveness).map(({ bracket, nModels, initialIter }) => {
        const params = sampleParams(spec.space, nModels, deriveSeed(spec.seed, SeedTag.bracket, bracket));
        const cfg = { n: nModels, r: initialIter, eta: spec.aggressiveness, maxIter: spec.maxIter };
        return new HalvingBracket(bracket, trials(spec, bracket, params, `b${bracket}-`), cfg);
      });
  }
}

export class SearchController {
  private readonly groups: TrialGroup[];
  private readonly index = new Map<string, { group: TrialGroup; trial: TrialState }>();
  private readonly closed = new Set<TrialGroup>();
  private queue: TrialCommand[] = [];
  private winner: TrialState | null = null;
  private finished = false;

  constructor(readonly spec: SearchSpec) {
    this.groups = buildGroups(spec);
    for (const group of this.groups) {
      for (const trial of group.trials) this.index.set(trial.id, { group, trial });
      this.queue.push(...group.start());
    }
    this.settle();
  }

  /** Commands issued since the last call, in the order to run them. */
  next(): TrialCommand[] {
    const out = this.queue;
    this.queue = [];
    return out;
  }

  /**
   * `trialId` has trained `epochs` epochs and scored `score` on validation (higher is better;
   * NaN ranks last). Reports before the trial's target are progress only and change nothing.
   */
  report(trialId: string, epochs: number, score: number): void {
    const { group, trial } = this.running(trialId);
    if (typeof score !== 'number') throw new SearchError(`trial ${trialId}: score must be a number`);
    if (!Number.isInteger(epochs) || epochs < 0) throw new SearchError(`trial ${trialId}: epochs must be a non-negative integer, got ${epochs}`);
    if (epochs > trial.target) throw new SearchError(`trial ${trialId}: reported ${epochs} epochs but was told to train to ${trial.target}`);
    if (epochs < trial.target) return;
    this.queue.push(...group.report(trial, score));
    this.settle();
  }

  /** `trialId` crashed or its worker died without a retry; it leaves the search. */
  fail(trialId: string, error: string): void {
    const { group, trial } = this.running(trialId);
    this.queue.push(...group.fail(trial, error));
    this.settle();
  }

  get done(): boolean {
    return this.finished;
  }

  /** Every trial, best first (ties to the earlier bracket order, then the earlier trial). */
  leaderboard(): LeaderboardEntry[] {
    const all = this.groups.flatMap((g) => g.trials);
    const order = new Map(all.map((t, i) => [t, i]));
    const sorted = [...all].sort((a, b) => scoreKey(b) - scoreKey(a) || (order.get(a) ?? 0) - (order.get(b) ?? 0));
    let rank = 0;
    let prev = NaN;
    return sorted.map((t, i) => {
      const key = scoreKey(t);
      if (key !== prev) rank = i + 1;
      prev = key;
      const e: LeaderboardEntry = {
        trialId: t.id,
        bracket: t.bracket,
        params: t.params,
        epochs: t.epochs,
        score: t.score,
        status: t.status,
        rank: t.score === null ? null : rank,
      };
      if (t.error !== undefined) e.error = t.error;
      return e;
    });
  }

  /** The winning trial once the search is done (null before, or if every trial failed). */
  best(): LeaderboardEntry | null {
    if (!this.winner) return null;
    return this.leaderboard().find((e) => e.trialId === this.winner?.id) ?? null;
  }

  private running(trialId: string): { group: TrialGroup; trial: TrialState } {
    const hit = this.index.get(trialId);
    if (!hit) throw new SearchError(`unknown trial ${trialId}`);
    if (hit.trial.status !== 'running') throw new SearchError(`trial ${trialId} is ${hit.trial.status}, not running`);
    return hit;
  }

  /** Frees the spare models of finished groups, and names the winner when all are finished. */
  private settle(): void {
    for (const g of this.groups) {
      if (!g.done || this.closed.has(g)) continue;
      this.closed.add(g);
      const best = g.best();
      for (const t of g.trials) {
        if (t.status !== 'idle' || t === best) continue;
        t.status = 'finished';
        this.queue.push({ kind: 'stop', trialId: t.id, reason: 'finished' });
      }
    }
    if (this.finished || this.closed.size < this.groups.length) return;
    this.finished = true;
    // Hyperband: the bracket with the best score wins; Python's max keeps the first on ties,
    // and brackets are in dask-ml's order (most adaptive first).
    for (const g of this.groups) {
      const b = g.best();
      if (b && (this.winner === null || scoreKey(b) > scoreKey(this.winner))) this.winner = b;
    }
    for (const g of this.groups) {
      const b = g.best();
      if (!b) continue;
      b.status = b === this.winner ? 'best' : 'finished';
      this.queue.push({ kind: 'stop', trialId: b.id, reason: b === this.winner ? 'best' : 'finished' });
    }
  }
}
