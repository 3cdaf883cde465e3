import { describe, expect, it } from 'vitest';
import { SearchController } from '../../../common/tuning/controller';
import { planSearch } from '../../../common/tuning/plan';
import { parseSearchSpace } from '../../../common/tuning/space';
import type { SearchSpec, TrialCommand, TrialParams } from '../../../common/tuning/types';

/** Drives a controller to the end with a planted score function; reports in `order`. */
function drive(c: SearchController, score: (p: TrialParams, epochs: number) => number, order: 'fifo' | 'lifo' = 'fifo') {
  const params = new Map<string, TrialParams>();
  const log: TrialCommand[] = [];
  for (let cmds = c.next(); cmds.length > 0; cmds = c.next()) {
    log.push(...cmds);
    const work = cmds.filter((x) => x.kind !== 'stop');
    if (order === 'lifo') work.reverse();
    for (const cmd of work) {
      if (cmd.kind === 'start') params.set(cmd.trialId, cmd.params);
      c.report(cmd.trialId, cmd.epochs, score(params.get(cmd.trialId) ?? {}, cmd.epochs));
    }
  }
  return log;
}

// Planted: lr = 0.1 is best at every budget; longer training helps everyone a little.
const planted = (p: TrialParams, epochs: number) => -Math.abs(Math.log10(p.lr as number) + 1) + 0.001 * epochs;

describe('grid and random search', () => {
  it('runs every grid point once, frees losers at once, names the best', () => {
    const c = new SearchController({ method: 'grid', space: parseSearchSpace({ lr: [0.001, 0.1, 10] }), epochs: 5, seed: 1 });
    const first = c.next();
    expect(first.map((x) => [x.kind, x.trialId, x.kind === 'start' ? x.epochs : null])).toEqual([
      ['start', 't0', 5], ['start', 't1', 5], ['start', 't2', 5],
    ]);
    c.report('t0', 3, 123); // progress only
    expect(c.next()).toEqual([]);
    c.report('t0', 5, 0.5);
    c.report('t1', 5, 0.9);
    expect(c.next()).toEqual([{ kind: 'stop', trialId: 't0', reason: 'finished' }]);
    c.report('t2', 5, 0.1);
    expect(c.next()).toEqual([
      { kind: 'stop', trialId: 't2', reason: 'finished' },
      { kind: 'stop', trialId: 't1', reason: 'best' },
    ]);
    expect(c.done).toBe(true);
    expect(c.best()).toMatchObject({ trialId: 't1', params: { lr: 0.1 }, score: 0.9, status: 'best', rank: 1 });
    expect(c.leaderboard().map((e) => [e.trialId, e.rank, e.status])).toEqual([['t1', 1, 'best'], ['t0', 2, 'finished'], ['t2', 3, 'finished']]);
  });

  it('gives ties the same rank and the win to the earlier trial', () => {
    const c = new SearchController({ method: 'grid', space: parseSearchSpace({ lr: [1, 2, 3] }), epochs: 1, seed: 0 });
    c.next();
    c.report('t2', 1, 0.7);
    c.report('t1', 1, 0.7);
    c.report('t0', 1, 0.2);
    expect(c.best()?.trialId).toBe('t1');
    expect(c.leaderboard().map((e) => e.rank)).toEqual([1, 1, 3]);
  });

  it('random search: seed fixes params and trial seeds', () => {
    const spec: SearchSpec = { method: 'random', space: parseSearchSpace({ lr: { loguniform: [1e-3, 1] } }), nTrials: 4, epochs: 2, seed: 42 };
    const a = new SearchController(spec).next();
    expect(new SearchController(spec).next()).toEqual(a);
    expect(new SearchController({ ...spec, seed: 43 }).next()).not.toEqual(a);
    expect(new Set(a.map((x) => (x.kind === 'start' ? x.seed : 0))).size).toBe(4);
  });

  it('a failed trial leaves the search and shows its error', () => {
    const c = new SearchController({ method: 'grid', space: parseSearchSpace({ lr: [1, 2] }), epochs: 1, seed: 0 });
    c.next();
    c.fail('t0', 'out of memory');
    c.report('t1', 1, 0.3);
    expect(c.done).toBe(true);
    expect(c.best()?.trialId).toBe('t1');
    expect(c.leaderboard()[1]).toMatchObject({ trialId: 't0', status: 'failed', error: 'out of memory', rank: null });
  });

  it('rejects unknown, stale and over-budget reports', () => {
    const c = new SearchController({ method: 'grid', space: parseSearchSpace({ lr: [1, 2] }), epochs: 3, seed: 0 });
    c.next();
    expect(() => c.report('t9', 3, 0)).toThrow('unknown trial t9');
    expect(() => c.report('t0', 4, 0)).toThrow('trial t0: reported 4 epochs but was told to train to 3');
    c.report('t0', 3, 0.5);
    c.report('t1', 3, 0.6);
    expect(() => c.report('t0', 3, 0.5)).toThrow('trial t0 is finished, not running');
  });
});

describe('successive halving (dask-ml SuccessiveHalvingSearchCV)', () => {
  const space = parseSearchSpace({ lr: [0.0001, 0.001, 0.01, 0.1, 1, 10, 100, 1000, 0.3] });

  it('keeps the planted best configuration to the end, halving by aggressiveness', () => {
    const c = new SearchController({ method: 'successive-halving', space, nInitialParameters: 'grid', nInitialIter: 1, aggressiveness: 3, maxIter: 9, seed: 5 });
    const log = drive(c, planted);
    // n=9, r=1, eta=3: 9 trials at 1 epoch, the best 3 to 3 epochs, the best 1 to 9.
    expect(log.filter((x) => x.kind === 'start')).toHaveLength(9);
    expect(log.filter((x) => x.kind === 'continue').map((x) => x.epochs)).toEqual([3, 3, 3, 9]);
    expect(log.filter((x) => x.kind === 'stop' && x.reason === 'halved')).toHaveLength(8);
    expect(c.best()).toMatchObject({ params: { lr: 0.1 }, epochs: 9, status: 'best' });
    // Survivors of rung 1 were the three nearest 0.1 on the log scale: 0.1, 0.3, 0.01 (tie 1 vs 0.01 -> earlier).
    const rung2 = log.filter((x) => x.kind === 'continue' && x.epochs === 3).map((x) => x.trialId).sort();
    expect(rung2).toEqual(['t2', 't3', 't8']);
  });

  it('decides the same whatever order reports arrive in', () => {
    const mk = () => new SearchController({ method: 'hyperband', space: parseSearchSpace({ lr: { loguniform: [1e-4, 10] } }), maxIter: 27, aggressiveness: 3, seed: 9 });
    const a = mk();
    const b = mk();
    drive(a, planted, 'fifo');
    drive(b, planted, 'lifo');
    expect(b.leaderboard()).toEqual(a.leaderboard());
    expect(a.best()?.epochs).toBe(27);
  });

  it("matches dask-ml's _simulate_sha when the last rung overshoots max_iter (n=30, r=9, eta=3, max_iter=100)", () => {
    // k: n_k = floor(30/3^k), r_k = 9*3^k -> (30,9) (10,27) (3,81) (1,243); 81 < 100 so it continues.
    const p = planSearch({ method: 'successive-halving', space: parseSearchSpace({ lr: { uniform: [0, 1] } }), nInitialParameters: 30, nInitialIter: 9, aggressiveness: 3, maxIter: 100, seed: 0 });
    expect(p.brackets[0].rungs).toEqual([{ trials: 30, epochs: 9 }, { trials: 10, epochs: 27 }, { trials: 3, epochs: 81 }, { trials: 1, epochs: 243 }]);
    expect(p.totalEpochs).toBe(20 * 9 + 7 * 27 + 2 * 81 + 243);
  });

  it('rounds r * eta^k half to even like np.round (eta = 2.5)', () => {
    // n=10, r=1: first call scored at 1 (r_0 = 1), then k=1: floor(10/2.5)=4 to round(2.5)=2,
    // k=2: floor(10/6.25)=1 to round(6.25)=6, k=3: floor(10/15.6)=0 ends.
    const p = planSearch({ method: 'successive-halving', space: parseSearchSpace({ lr: { uniform: [0, 1] } }), nInitialParameters: 10, nInitialIter: 1, aggressiveness: 2.5, seed: 0 });
    expect(p.brackets[0].rungs).toEqual([{ trials: 10, epochs: 1 }, { trials: 4, epochs: 2 }, { trials: 1, epochs: 6 }]);
  });

  it('with max_iter = 1 trains one epoch only, as dask-ml does', () => {
    const p = planSearch({ method: 'successive-halving', space: parseSearchSpace({ lr: { uniform: [0, 1] } }), nInitialParameters: 4, nInitialIter: 3, aggressiveness: 3, maxIter: 1, seed: 0 });
    expect(p.brackets[0].rungs).toEqual([{ trials: 4, epochs: 1 }]);
  });

  it('refuses settings dask-ml would recurse on forever', () => {
    expect(() => new SearchController({ method: 'successive-halving', space, nInitialParameters: 3, nInitialIter: 1, aggressiveness: 1.2, seed: 0 })).toThrow(/never grows past 1 epoch/);
  });

  it('a trial failing mid-rung does not stall the decision', () => {
    const c = new SearchController({ method: 'successive-halving', space, nInitialParameters: 'grid', nInitialIter: 2, aggressiveness: 3, seed: 5 });
    const starts = c.next();
    c.fail(starts[0].trialId, 'worker died');
    for (const s of starts.slice(1)) if (s.kind === 'start') c.report(s.trialId, 2, planted(s.params, 2));
    expect(c.next().filter((x) => x.kind === 'continue')).toHaveLength(3);
  });
});
