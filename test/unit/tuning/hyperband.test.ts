import { describe, expect, it } from 'vitest';
import { hyperbandBrackets } from '../../../common/tuning/hyperband';
import { planSearch } from '../../../common/tuning/plan';

const space = { lr: { kind: 'loguniform' as const, low: 1e-4, high: 1 } };

describe('hyperband brackets (dask-ml _get_hyperband_params)', () => {
  it('max_iter=81, aggressiveness=3: brackets by hand from the formulas', () => {
    // s_max = 4, B = 5 * 81 = 405; n_s = ceil(405/81 * 3^s / (s+1)), r_s = floor(81 * 3^-s)
    expect(hyperbandBrackets(81, 3)).toEqual([
      { bracket: 4, nModels: 81, initialIter: 1 }, // ceil(5*81/5)
      { bracket: 3, nModels: 34, initialIter: 3 }, // ceil(5*27/4) = ceil(33.75)
      { bracket: 2, nModels: 15, initialIter: 9 }, // ceil(5*9/3)
      { bracket: 1, nModels: 8, initialIter: 27 }, // ceil(5*3/2) = ceil(7.5)
      { bracket: 0, nModels: 5, initialIter: 81 },
    ]);
  });

  it('takes s_max exactly: max_iter=243, aggressiveness=3 has 6 brackets (dask-ml float log gives 5)', () => {
    const b = hyperbandBrackets(243, 3);
    // s_max = 5, B = 6 * 243 = 1458; n_5 = ceil(6 * 243 / 6) = 243, r_5 = 1
    expect(b[0]).toEqual({ bracket: 5, nModels: 243, initialIter: 1 });
    expect(b).toHaveLength(6);
    // Just under a power: max_iter = 80 gives s_max = 3 (27 <= 80 < 81), B = 320.
    // n_s = ceil(4 * 3^s / (s+1)), r_s = floor(80 / 3^s)
    expect(hyperbandBrackets(80, 3)).toEqual([
      { bracket: 3, nModels: 27, initialIter: 2 },
      { bracket: 2, nModels: 12, initialIter: 8 },
      { bracket: 1, nModels: 6, initialIter: 26 },
      { bracket: 0, nModels: 4, initialIter: 80 },
    ]);
  });

  it('rejects a non-integer aggressiveness', () => {
    expect(() => hyperbandBrackets(81, 2.5)).toThrow(/aggressiveness must be an integer >= 2/);
    expect(() => hyperbandBrackets(0, 3)).toThrow(/maxIter must be a positive integer/);
  });
});

describe('hyperband plan equals dask-ml HyperbandSearchCV.metadata (_hyperband_paper_alg)', () => {
  it('max_iter=81, aggressiveness=3', () => {
    const p = planSearch({ method: 'hyperband', space, maxIter: 81, aggressiveness: 3, seed: 0 });
    const byBracket = Object.fromEntries(p.brackets.map((b) => [b.bracket, b]));
    // Per bracket: survivors floor(n * 3^-i) train to r * 3^i; a trial's epochs are those of the
    // last rung it reached. Totals by hand: 54*1+18*3+6*9+2*27+81 = 297; 23*3+8*9+2*27+81 = 276;
    // 10*9+4*27+81 = 279; 6*27+2*81 = 324; 5*81 = 405.
    expect(byBracket[4].rungs).toEqual([{ trials: 81, epochs: 1 }, { trials: 27, epochs: 3 }, { trials: 9, epochs: 9 }, { trials: 3, epochs: 27 }, { trials: 1, epochs: 81 }]);
    expect(byBracket[3].rungs).toEqual([{ trials: 34, epochs: 3 }, { trials: 11, epochs: 9 }, { trials: 3, epochs: 27 }, { trials: 1, epochs: 81 }]);
    expect(byBracket[2].rungs).toEqual([{ trials: 15, epochs: 9 }, { trials: 5, epochs: 27 }, { trials: 1, epochs: 81 }]);
    expect(byBracket[1].rungs).toEqual([{ trials: 8, epochs: 27 }, { trials: 2, epochs: 81 }]);
    expect(byBracket[0].rungs).toEqual([{ trials: 5, epochs: 81 }]);
    expect(p.brackets.map((b) => [b.bracket, b.nModels, b.totalEpochs])).toEqual([
      [4, 81, 297],
      [3, 34, 276],
      [2, 15, 279],
      [1, 8, 324],
      [0, 5, 405],
    ]);
    expect(p.nTrials).toBe(143);
    expect(p.totalEpochs).toBe(1581);
  });
});
