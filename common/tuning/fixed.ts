/**
 * Grid and random search: every trial trains for the same number of epochs, once. A trial that
 * finishes below the best so far is stopped at once (its model freed); the best so far is kept
 * until a better one arrives, so a worker holds at most one spare model per search.
 */
import { newTrialState, ranksAbove, startCommand, type NewTrial, type TrialGroup, type TrialState } from './group';
import type { TrialCommand } from './types';

export class FixedBudgetGroup implements TrialGroup {
  readonly bracket = 0;
  readonly trials: TrialState[];
  private leader: TrialState | null = null;
  /** Trials still running: `done` is asked after every report, so it must not scan them all (issue 29). */
  private running: number;

  constructor(
    trials: NewTrial[],
    private readonly epochs: number,
  ) {
    this.trials = trials.map((t, i) => newTrialState(t, i, 0));
    for (const t of this.trials) t.target = epochs;
    this.running = this.trials.length;
  }

  get done(): boolean {
    return this.running === 0;
  }

  start(): TrialCommand[] {
    return this.trials.map(startCommand);
  }

  report(trial: TrialState, score: number): TrialCommand[] {
    this.running--;
    trial.score = score;
    trial.epochs = trial.target;
    return this.settle(trial);
  }

  fail(trial: TrialState, error: string): TrialCommand[] {
    this.running--;
    trial.status = 'failed';
    trial.error = error;
    return [];
  }

  best(): TrialState | null {
    return this.leader;
  }

  private settle(trial: TrialState): TrialCommand[] {
    if (this.leader === null || ranksAbove(trial, this.leader)) {
      const previous = this.leader;
      trial.status = 'idle';
      this.leader = trial;
      if (previous === null) return [];
      previous.status = 'finished';
      return [{ kind: 'stop', trialId: previous.id, reason: 'finished' }];
    }
    trial.status = 'finished';
    return [{ kind: 'stop', trialId: trial.id, reason: 'finished' }];
  }
}
