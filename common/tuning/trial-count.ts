/**
 * How many models a search starts, from its spec alone: arithmetic, no trial is built. Checked
 * before the search is compiled (issue 29 item 8): n_iter had no bound, 50 000 random trials froze
 * serve for 22 s while they were built and 10^6 ended in a stack overflow.
 */
import { hyperbandBrackets } from './hyperband';
import { gridSize } from './space';
import type { SearchSpec } from './types';

/** Most models one search may train (all brackets of a Hyperband together). */
export const MAX_SEARCH_TRIALS = 10_000;

/** Models the search starts: later halving rounds continue some of them, never add new ones. */
export function searchTrialCount(spec: SearchSpec): number {
  switch (spec.method) {
    case 'grid':
      return gridSize(spec.space);
    case 'random':
      return spec.nTrials;
    case 'successive-halving':
      return spec.nInitialParameters === 'grid' ? gridSize(spec.space) : spec.nInitialParameters;
    case 'hyperband':
      return hyperbandBrackets(spec.maxIter, spec.aggressiveness).reduce((n, b) => n + b.nModels, 0);
  }
}
