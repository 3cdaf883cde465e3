/**
 * The plan of a search before it runs: trials and epochs per bracket. It runs the controller
 * itself on constant scores: how many trials survive each rung never depends on the scores, so
 * the plan is what the run will do (unless trials fail), by construction rather than by a second
 * copy of the formulas. For Hyperband it equals dask-ml's `HyperbandSearchCV.metadata`
 * (`_hyperband_paper_alg`): see test/unit/tuning/hyperband.test.ts.
 */
import { SearchController } from './controller';
import type { BracketPlan, SearchPlan, SearchSpec } from './types';

export function planSearch(spec: SearchSpec): SearchPlan {
  const c = new SearchController({ ...spec });
  const finalEpochs = new Map<string, { bracket: number; epochs: number }>();
  const reached = new Map<number, Map<number, number>>(); // bracket -> epochs -> trials reaching it
  const bump = (bracket: number, epochs: number) => {
    const m = reached.get(bracket) ?? new Map<number, number>();
    m.set(epochs, (m.get(epochs) ?? 0) + 1);
    reached.set(bracket, m);
  };
  for (let cmds = c.next(); cmds.length > 0; cmds = c.next()) {
    for (const cmd of cmds) {
      if (cmd.kind === 'stop') continue;
      const bracket = cmd.kind === 'start' ? cmd.bracket : (finalEpochs.get(cmd.trialId)?.bracket ?? 0);
      finalEpochs.set(cmd.trialId, { bracket, epochs: cmd.epochs });
      bump(bracket, cmd.epochs);
      c.report(cmd.trialId, cmd.epochs, 0);
    }
  }
  const brackets: BracketPlan[] = [...reached.keys()].map((bracket) => {
    const rungs = [...(reached.get(bracket) ?? new Map<number, number>()).entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([epochs, trials]) => ({ trials, epochs }));
    const mine = [...finalEpochs.values()].filter((t) => t.bracket === bracket);
    return {
      bracket,
      nModels: mine.length,
      initialEpochs: rungs[0]?.epochs ?? 0,
      rungs,
      totalEpochs: mine.reduce((s, t) => s + t.epochs, 0),
    };
  });
  return {
    method: spec.method,
    nTrials: finalEpochs.size,
    totalEpochs: brackets.reduce((s, b) => s + b.totalEpochs, 0),
    brackets,
  };
}
