import { describe, expect, it } from 'vitest';
import { permutation } from '../../../common/tuning/random';
import { expandGrid, gridSize, parseSearchSpace, sampleParams } from '../../../common/tuning/space';

describe('search space parsing', () => {
  it('reads lists as choices and the named distributions', () => {
    expect(parseSearchSpace({ opt: ['adam', 'sgd'], lr: { loguniform: [1e-4, 0.1] }, units: { randint: [8, 65] }, p: { uniform: [0, 0.5] }, act: { choice: ['relu'] } })).toEqual({
      opt: { kind: 'choice', values: ['adam', 'sgd'] },
      lr: { kind: 'loguniform', low: 1e-4, high: 0.1 },
      units: { kind: 'randint', low: 8, high: 65 },
      p: { kind: 'uniform', low: 0, high: 0.5 },
      act: { kind: 'choice', values: ['relu'] },
    });
  });

  it('names the bad entry and says what is wrong', () => {
    expect(() => parseSearchSpace({ lr: { loguniform: [0, 1] } }, 'nodes[2].params.space')).toThrow('nodes[2].params.space.lr.loguniform: loguniform needs low > 0');
    expect(() => parseSearchSpace({ lr: { uniform: [1, 0] } })).toThrow('space.lr.uniform: low must be below high');
    expect(() => parseSearchSpace({ units: { randint: [1.5, 4] } })).toThrow('space.units.randint: randint bounds must be integers');
    expect(() => parseSearchSpace({ opt: [] })).toThrow(/space\.opt.*at least one value/);
    expect(() => parseSearchSpace({})).toThrow('space: the search space is empty');
    expect(() => parseSearchSpace({ lr: { normal: [0, 1] } })).toThrow(/space\.lr/);
  });
});

describe('grid', () => {
  it("follows scikit-learn ParameterGrid order: keys sorted, last key fastest", () => {
    const space = parseSearchSpace({ b: [1, 2, 3], a: ['x', 'y'] });
    expect(gridSize(space)).toBe(6);
    expect(expandGrid(space)).toEqual([
      { a: 'x', b: 1 }, { a: 'x', b: 2 }, { a: 'x', b: 3 },
      { a: 'y', b: 1 }, { a: 'y', b: 2 }, { a: 'y', b: 3 },
    ]);
  });

  it('refuses a grid too large to run, and samples a huge one without enumerating it', () => {
    const values = Array.from({ length: 10 }, (_, i) => i);
    const huge = parseSearchSpace(Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`p${k}`, values])));
    expect(() => expandGrid(huge)).toThrow('the grid has 100000000 points, more than 100000; use a random search with nTrials instead');
    const s = sampleParams(huge, 50, 3);
    expect(new Set(s.map((p) => JSON.stringify(p))).size).toBe(50);
    expect(sampleParams(huge, 50, 3)).toEqual(s);
  });

  it('refuses a distribution in a grid', () => {
    expect(() => expandGrid(parseSearchSpace({ lr: { uniform: [0, 1] } }))).toThrow('space.lr: a grid needs a list of values, got a uniform distribution');
  });
});

describe('random sampling', () => {
  const space = parseSearchSpace({ lr: { loguniform: [1e-4, 1] }, opt: ['adam', 'sgd', 'rmsprop'], units: { randint: [8, 12] }, p: { uniform: [0, 0.5] } });

  it('is reproducible from the seed and changes with it', () => {
    expect(sampleParams(space, 20, 7)).toEqual(sampleParams(space, 20, 7));
    expect(sampleParams(space, 20, 7)).not.toEqual(sampleParams(space, 20, 8));
  });

  it('stays inside every distribution and covers it', () => {
    const s = sampleParams(space, 400, 3);
    const lr = s.map((p) => p.lr as number);
    const units = new Set(s.map((p) => p.units));
    expect(Math.min(...lr)).toBeGreaterThanOrEqual(1e-4);
    expect(Math.max(...lr)).toBeLessThanOrEqual(1);
    // log-uniform: about a quarter of draws per decade of the four.
    const belowE2 = lr.filter((v) => v < 1e-2).length / lr.length;
    expect(belowE2).toBeGreaterThan(0.4);
    expect(belowE2).toBeLessThan(0.6);
    expect(units).toEqual(new Set([8, 9, 10, 11]));
    expect(new Set(s.map((p) => p.opt))).toEqual(new Set(['adam', 'sgd', 'rmsprop']));
    for (const p of s) expect((p.p as number) >= 0 && (p.p as number) <= 0.5).toBe(true);
  });

  it('draws distinct grid points when every entry is a list, at most the grid size', () => {
    const grid = parseSearchSpace({ a: [1, 2, 3], b: [true, false] });
    const s = sampleParams(grid, 10, 1);
    expect(s).toHaveLength(6);
    expect(new Set(s.map((p) => JSON.stringify(p))).size).toBe(6);
  });
});

describe('permutation', () => {
  it('is a permutation, seeded, and roughly uniform', () => {
    const p = permutation(50, 11);
    expect([...p].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(permutation(50, 11)).toEqual(p);
    // position of element 0 over many seeds: each third of the range gets a fair share
    const counts = [0, 0, 0];
    for (let s = 0; s < 600; s++) counts[Math.floor(permutation(3, s).indexOf(0))]++;
    for (const c of counts) expect(c).toBeGreaterThan(150);
  });
});

describe('search spec parsing', () => {
  it('fills dask-ml defaults and keeps the parsed space', async () => {
    const { parseSearchSpec } = await import('../../../common/tuning/spec');
    expect(parseSearchSpec({ method: 'hyperband', space: { lr: [0.1, 1] } })).toEqual({
      method: 'hyperband', space: { lr: { kind: 'choice', values: [0.1, 1] } }, maxIter: 81, aggressiveness: 3, seed: 0,
    });
    expect(() => parseSearchSpec({ method: 'random', space: { lr: [1] }, nTrials: 0, epochs: 3 }, 'nodes[4].params')).toThrow('nodes[4].params.nTrials: must be positive');
    expect(() => parseSearchSpec({ method: 'hyperband', space: { lr: [1] }, aggressiveness: 2.5 })).toThrow('search.aggressiveness: must be an integer');
    expect(() => parseSearchSpec({ method: 'bayes', space: {} })).toThrow(/search\.method/);
    expect(() => parseSearchSpec({ method: 'grid', space: { lr: [1] }, epochs: 2, extra: 1 })).toThrow(/extra/);
    expect(() => parseSearchSpec({ method: 'grid', space: { lr: { uniform: [2, 1] } }, epochs: 2 })).toThrow('search.space.lr.uniform: low must be below high');
  });
});
