/**
 * A search as a static task graph: the SearchController replayed from trial outcomes.
 *
 * The engine's scheduler runs a graph fixed before the run, but successive halving decides which
 * trials continue from their scores. What is fixed is how many trials train in each round of a
 * bracket and to how many epochs (common/tuning/plan.ts): so the compiler emits, per bracket and
 * round, that many tasks, and task i of round k depends on every task of round k - 1 of its
 * bracket. At run time the task replays the controller from those outcomes and trains the trial
 * of the i-th start/continue command, which the controller issues best first. Because the
 * controller is deterministic and waits for a whole round before deciding, every task of a round
 * sees the same decisions, whatever the worker or the order results arrived in.
 *
 * Example: successive halving of 4 learning rates, 1 epoch, aggressiveness 2 -> rounds 4×1, 2×2,
 * 1×4. Task (round 1, index 0) gets the four 1-epoch outcomes, replays round 0, and continues the
 * best of them to 2 epochs; index 1 continues the second best.
 *
 * Pure: no tfjs, no I/O; main (planning) and the worker (replaying) share it.
 */
import { SearchController } from './controller';
import type { LeaderboardEntry, SearchSpec, TrialCommand, TrialParams } from './types';

/** What a trial task reports about the trial it trained (weights travel separately). */
export interface TrialOutcome {
  trialId: string;
  bracket: number;
  params: TrialParams;
  /** Epochs the trial had trained when scored (its target). */
  epochs: number;
  /** Validation score, higher is better; null when it failed. */
  score: number | null;
  /** Set when training threw: the trial leaves the search. */
  error?: string;
}

/** A start or continue command with the trial's bracket, params and seed filled in. */
export interface TrainCommand {
  trialId: string;
  bracket: number;
  params: TrialParams;
  seed: number;
  /** Total epochs to reach. */
  epochs: number;
  /** Epochs it already has (0 for a start). */
  from: number;
}

export class ReplayError extends Error {
  override name = 'ReplayError';
}

interface TrialInfo {
  bracket: number;
  params: TrialParams;
  seed: number;
  epochs: number;
}

function enrich(cmds: TrialCommand[], info: Map<string, TrialInfo>): TrainCommand[] {
  const out: TrainCommand[] = [];
  for (const c of cmds) {
    if (c.kind === 'stop') continue;
    if (c.kind === 'start') {
      info.set(c.trialId, { bracket: c.bracket, params: c.params, seed: c.seed, epochs: 0 });
      out.push({ trialId: c.trialId, bracket: c.bracket, params: c.params, seed: c.seed, epochs: c.epochs, from: 0 });
      continue;
    }
    const t = info.get(c.trialId);
    if (!t) throw new ReplayError(`continue for trial ${c.trialId}, which never started`);
    out.push({ trialId: c.trialId, bracket: t.bracket, params: t.params, seed: t.seed, epochs: c.epochs, from: t.epochs });
  }
  return out;
}

export interface Replayed {
  controller: SearchController;
  /** Commands of the first round whose outcomes are missing (empty when the search is over). */
  pending: TrainCommand[];
  /** Index of that round. */
  round: number;
}

/**
 * Replays the controller from `outcomes`, round by round, reporting each round's outcomes in
 * command order. With `bracket` set, only that bracket's commands count (the other brackets are
 * never reported and never decide). Stops at the first round with no outcomes at all.
 */
export function replaySearch(spec: SearchSpec, outcomes: readonly TrialOutcome[], bracket?: number): Replayed {
  const controller = new SearchController(spec);
  const byKey = new Map(outcomes.map((o) => [`${o.trialId}@${o.epochs}`, o]));
  const failed = new Map(outcomes.filter((o) => o.error !== undefined).map((o) => [o.trialId, o]));
  const info = new Map<string, TrialInfo>();
  for (let round = 0; ; round++) {
    const cmds = enrich(controller.next(), info).filter((c) => bracket === undefined || c.bracket === bracket);
    if (cmds.length === 0) return { controller, pending: [], round };
    const got = cmds.map((c) => byKey.get(`${c.trialId}@${c.epochs}`) ?? failed.get(c.trialId));
    const have = got.filter((o) => o !== undefined).length;
    if (have === 0) return { controller, pending: cmds, round };
    if (have < cmds.length) {
      const missing = cmds.filter((_, i) => got[i] === undefined).map((c) => `${c.trialId} to ${c.epochs} epochs`);
      throw new ReplayError(`round ${round} is incomplete: no outcome for ${missing.join(', ')}`);
    }
    cmds.forEach((c, i) => {
      const o = got[i]!;
      const t = info.get(c.trialId)!;
      if (o.error !== undefined || o.score === null) controller.fail(c.trialId, o.error ?? 'no score');
      else {
        t.epochs = c.epochs;
        controller.report(c.trialId, c.epochs, o.score);
      }
    });
  }
}

/** Round sizes of each bracket, from the controller run on constant scores (never score-dependent). */
export interface StaticBracket {
  bracket: number;
  rounds: { tasks: number; epochs: number }[];
}

export function staticRounds(spec: SearchSpec): StaticBracket[] {
  const controller = new SearchController(spec);
  const info = new Map<string, TrialInfo>();
  const brackets = new Map<number, StaticBracket>();
  for (let cmds = enrich(controller.next(), info); cmds.length > 0; cmds = enrich(controller.next(), info)) {
    const rounds = new Map<number, { tasks: number; epochs: number }>();
    for (const c of cmds) {
      const r = rounds.get(c.bracket) ?? { tasks: 0, epochs: c.epochs };
      if (r.epochs !== c.epochs) throw new ReplayError(`bracket ${c.bracket}: one round trains to both ${r.epochs} and ${c.epochs} epochs`);
      r.tasks++;
      rounds.set(c.bracket, r);
    }
    for (const [b, r] of rounds) {
      const sb = brackets.get(b) ?? { bracket: b, rounds: [] };
      sb.rounds.push(r);
      brackets.set(b, sb);
    }
    for (const c of cmds) {
      info.get(c.trialId)!.epochs = c.epochs;
      controller.report(c.trialId, c.epochs, 0);
    }
  }
  return [...brackets.values()];
}

/** The finished search from every outcome: leaderboard (best first) and winner. */
export function finalLeaderboard(spec: SearchSpec, outcomes: readonly TrialOutcome[]): { leaderboard: LeaderboardEntry[]; best: LeaderboardEntry | null } {
  const { controller, pending } = replaySearch(spec, outcomes);
  if (pending.length > 0 || !controller.done) {
    throw new ReplayError(
      `the search is not over: ${pending.length} trials still to train (${pending
        .slice(0, 3)
        .map((p) => p.trialId)
        .join(', ')})`,
    );
  }
  return { leaderboard: controller.leaderboard(), best: controller.best() };
}
