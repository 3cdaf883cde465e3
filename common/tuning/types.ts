/**
 * Types of a hyperparameter search, shared by main (which drives the search), the worker (which
 * trains one trial) and the renderer (which shows the plan and the leaderboard). Pure data.
 *
 * Vocabulary follows dask-ml: a *trial* is one model with one parameter setting; an *epoch* is
 * one pass over the training set and plays the role of one `partial_fit` call; a *bracket* is one
 * successive-halving run inside Hyperband; *aggressiveness* is Hyperband's eta. Scores are
 * "higher is better" as in scikit-learn (losses are negated: -log-loss, -MSE).
 */

export type ParamScalar = number | string | boolean;

/** One trial's hyperparameters, e.g. `{ learningRate: 0.01, optimizer: 'adam' }`. */
export type TrialParams = Record<string, ParamScalar>;

/** How one hyperparameter is drawn. */
export type Distribution =
  /** One of `values`, uniformly (the only kind a grid accepts). */
  | { kind: 'choice'; values: ParamScalar[] }
  /** Uniform real in [low, high]. */
  | { kind: 'uniform'; low: number; high: number }
  /** exp(uniform(log low, log high)): for learning rates and regularisation strengths. */
  | { kind: 'loguniform'; low: number; high: number }
  /** Integer in [low, high), uniformly. */
  | { kind: 'randint'; low: number; high: number };

/** Parameter name -> distribution. Keys are visited in sorted order, as scikit-learn does. */
export type SearchSpace = Record<string, Distribution>;

export type SearchMethod = 'grid' | 'random' | 'successive-halving' | 'hyperband';

export type SearchSpec =
  /** Every point of the grid (all-choice space), each trained for `epochs`. */
  | { method: 'grid'; space: SearchSpace; epochs: number; seed: number }
  /** `nTrials` draws from the space, each trained for `epochs`. */
  | { method: 'random'; space: SearchSpace; nTrials: number; epochs: number; seed: number }
  /**
   * dask-ml SuccessiveHalvingSearchCV: `nInitialParameters` trials ('grid': the whole grid)
   * trained `nInitialIter` epochs, then the best 1/aggressiveness kept and trained
   * aggressiveness times longer, until one is left or `maxIter` is reached.
   */
  | {
      method: 'successive-halving';
      space: SearchSpace;
      nInitialParameters: number | 'grid';
      nInitialIter: number;
      maxIter?: number;
      aggressiveness: number;
      seed: number;
    }
  /** dask-ml HyperbandSearchCV: several successive-halving brackets derived from maxIter. */
  | { method: 'hyperband'; space: SearchSpace; maxIter: number; aggressiveness: number; seed: number };

/** What the main process should do next with a trial. `epochs` is always a total, not a delta. */
export type TrialCommand =
  | { kind: 'start'; trialId: string; params: TrialParams; seed: number; epochs: number; bracket: number }
  | { kind: 'continue'; trialId: string; epochs: number }
  /**
   * Free the trial's slot and model. 'halved': dropped by successive halving; 'finished': done,
   * not the winner; 'best': the search is over and this trial won (save its model first).
   */
  | { kind: 'stop'; trialId: string; reason: 'halved' | 'finished' | 'best' };

export type TrialStatus = 'running' | 'idle' | 'halved' | 'finished' | 'best' | 'failed';

export interface LeaderboardEntry {
  trialId: string;
  bracket: number;
  params: TrialParams;
  /** Epochs trained when `score` was taken. */
  epochs: number;
  /** Last validation score reported at a decision point (null before the first). */
  score: number | null;
  status: TrialStatus;
  /** 1-based rank by score (ties share the smaller rank), null without a score. */
  rank: number | null;
  error?: string;
}

/** One rung of a successive-halving bracket: how many trials train to how many epochs. */
export interface Rung {
  trials: number;
  epochs: number;
}

export interface BracketPlan {
  bracket: number;
  /** Trials started in this bracket (dask-ml `n_models`). */
  nModels: number;
  /** Epochs of the first rung (dask-ml `n_initial_iter`). */
  initialEpochs: number;
  rungs: Rung[];
  /** Sum over trials of the epochs each one trains (dask-ml `partial_fit_calls`). */
  totalEpochs: number;
}

export interface SearchPlan {
  method: SearchMethod;
  nTrials: number;
  totalEpochs: number;
  brackets: BracketPlan[];
}
