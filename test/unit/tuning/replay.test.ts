import { describe, expect, it } from 'vitest';
import { SearchController } from '../../../common/tuning/controller';
import { planSearch } from '../../../common/tuning/plan';
import { finalLeaderboard, replaySearch, staticRounds, type TrialOutcome } from '../../../common/tuning/replay';
import { parseSearchSpace } from '../../../common/tuning/space';
import type { SearchSpec, TrialParams } from '../../../common/tuning/types';

/** A planted score: learning rate 0.1 is best, more epochs help a little. */
const planted = (p: TrialParams, epochs: number) => -Math.abs(Math.log10(p.lr as number) + 1) + 0.001 * epochs;

const lrs = parseSearchSpace({ lr: [0.0001, 0.001, 0.01, 0.1, 1, 0.3, 0.03, 0.003, 0.0003] });
const specs: SearchSpec[] = [
  { method: 'grid', space: lrs, epochs: 3, seed: 1 },
  { method: 'random', space: parseSearchSpace({ lr: { loguniform: [1e-4, 1] } }), nTrials: 7, epochs: 2, seed: 2 },
  { method: 'successive-halving', space: lrs, nInitialParameters: 'grid', nInitialIter: 1, aggressiveness: 3, seed: 3 },
  { method: 'successive-halving', space: lrs, nInitialParameters: 'grid', nInitialIter: 2, aggressiveness: 2, maxIter: 10, seed: 3 },
  { method: 'hyperband', space: parseSearchSpace({ lr: { loguniform: [1e-4, 1] } }), maxIter: 27, aggressiveness: 3, seed: 4 },
];

/** Runs the controller directly (the oracle): every command answered with the planted score. */
function direct(spec: SearchSpec) {
  const c = new SearchController(spec);
  const params = new Map<string, TrialParams>();
  for (let cmds = c.next(); cmds.length; cmds = c.next()) {
    for (const cmd of cmds) {
      if (cmd.kind === 'start') params.set(cmd.trialId, cmd.params);
      if (cmd.kind !== 'stop') c.report(cmd.trialId, cmd.epochs, planted(params.get(cmd.trialId)!, cmd.epochs));
    }
  }
  return { leaderboard: c.leaderboard(), best: c.best() };
}

/** What the static task graph does: per bracket, round by round, each task replays and trains its command. */
function asTasks(spec: SearchSpec): { outcomes: TrialOutcome[]; tasks: number } {
  const outcomes: TrialOutcome[] = [];
  let tasks = 0;
  for (const b of staticRounds(spec)) {
    b.rounds.forEach((r, k) => {
      const { pending, round } = replaySearch(spec, outcomes, b.bracket);
      expect(round).toBe(k);
      expect(pending).toHaveLength(r.tasks);
      for (const cmd of pending) {
        expect(cmd.epochs).toBe(r.epochs);
        outcomes.push({ trialId: cmd.trialId, bracket: cmd.bracket, params: cmd.params, epochs: cmd.epochs, score: planted(cmd.params, cmd.epochs) });
      }
      tasks += r.tasks;
    });
    expect(replaySearch(spec, outcomes, b.bracket).pending).toEqual([]);
  }
  return { outcomes, tasks };
}

describe('a search as a static task graph', () => {
  it.each(specs.map((s) => [s.method, s] as const))('%s: round sizes match the plan, and replaying tasks gives the controller\'s own leaderboard', (_, spec) => {
    const plan = planSearch(spec);
    const rounds = staticRounds(spec);
    expect(rounds.map((b) => ({ bracket: b.bracket, rungs: b.rounds.map((r) => ({ trials: r.tasks, epochs: r.epochs })) }))).toEqual(plan.brackets.map((b) => ({ bracket: b.bracket, rungs: b.rungs })));
    const { outcomes, tasks } = asTasks(spec);
    expect(tasks).toBe(plan.brackets.reduce((n, b) => n + b.rungs.reduce((m, r) => m + r.trials, 0), 0));
    // Outcomes in any order give the same result (decisions wait for whole rounds).
    expect(finalLeaderboard(spec, [...outcomes].reverse())).toEqual(direct(spec));
  });

  it('keeps the planted best through successive halving and marks the rest halved', () => {
    const spec = specs[2];
    const { best, leaderboard } = finalLeaderboard(spec, asTasks(spec).outcomes);
    expect(best?.params).toEqual({ lr: 0.1 });
    expect(leaderboard.filter((e) => e.status === 'halved')).toHaveLength(8);
  });

  it('a failed trial leaves the search: a later round has fewer trials than slots', () => {
    const spec = specs[2];
    const first = replaySearch(spec, [], 0).pending;
    const outcomes: TrialOutcome[] = first.map((c) => ({ trialId: c.trialId, bracket: 0, params: c.params, epochs: c.epochs, score: planted(c.params, c.epochs) }));
    const bestId = first.find((c) => c.params.lr === 0.1)!.trialId;
    outcomes.find((o) => o.trialId === bestId)!.error = 'out of memory';
    const next = replaySearch(spec, outcomes, 0);
    expect(next.round).toBe(1);
    expect(next.pending.map((c) => c.trialId)).not.toContain(bestId);
    expect(next.pending.length).toBeLessThanOrEqual(staticRounds(spec)[0].rounds[1].tasks);
  });

  it('refuses a round with some outcomes missing, naming them', () => {
    const spec = specs[0];
    const first = replaySearch(spec, []).pending;
    const some = first.slice(1).map((c) => ({ trialId: c.trialId, bracket: 0, params: c.params, epochs: c.epochs, score: 0 }));
    expect(() => finalLeaderboard(spec, some)).toThrow(new RegExp(`no outcome for ${first[0].trialId} to 3 epochs`));
  });
});
