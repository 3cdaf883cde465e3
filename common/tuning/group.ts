/**
 * What the search controller needs from a set of trials run together: a fixed-budget group (grid,
 * random) or one successive-halving bracket. Each is a pure state machine: reports in, commands
 * out.
 */
import type { TrialCommand, TrialParams, TrialStatus } from './types';

export interface TrialState {
  readonly id: string;
  /** Position in the group: ties in score go to the lower index (scikit-learn/toolz order). */
  readonly index: number;
  readonly bracket: number;
  readonly params: TrialParams;
  readonly seed: number;
  /** Epochs trained at the last decision-point report (0 before any). */
  epochs: number;
  /** Epochs the trial was last told to reach. */
  target: number;
  score: number | null;
  status: TrialStatus;
  error?: string;
}

export interface TrialGroup {
  readonly bracket: number;
  readonly trials: readonly TrialState[];
  readonly done: boolean;
  /** Commands that start the group. */
  start(): TrialCommand[];
  /** A trial reached its target with this validation score; returns the commands that follow. */
  report(trial: TrialState, score: number): TrialCommand[];
  /** A trial failed; it leaves the group. */
  fail(trial: TrialState, error: string): TrialCommand[];
  /** The group's winner once done (null if every trial failed). */
  best(): TrialState | null;
}

export interface NewTrial {
  id: string;
  params: TrialParams;
  seed: number;
}

/** Scores compare with NaN as the worst value. */
export function scoreKey(t: TrialState): number {
  return t.score === null || Number.isNaN(t.score) ? -Infinity : t.score;
}

/** True when `a` ranks above `b`: higher score, ties to the lower index. */
export function ranksAbove(a: TrialState, b: TrialState): boolean {
  const sa = scoreKey(a);
  const sb = scoreKey(b);
  return sa > sb || (sa === sb && a.index < b.index);
}

/** The `k` best trials (toolz.topk / heapq.nlargest order: stable, earlier first on ties). */
export function topK(trials: TrialState[], k: number): TrialState[] {
  return [...trials].sort((a, b) => (ranksAbove(a, b) ? -1 : ranksAbove(b, a) ? 1 : 0)).slice(0, Math.max(0, k));
}

export function newTrialState(t: NewTrial, index: number, bracket: number): TrialState {
  return { id: t.id, index, bracket, params: t.params, seed: t.seed, epochs: 0, target: 0, score: null, status: 'running' };
}

export function startCommand(t: TrialState): TrialCommand {
  return { kind: 'start', trialId: t.id, params: t.params, seed: t.seed, epochs: t.target, bracket: t.bracket };
}
