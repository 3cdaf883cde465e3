/**
 * Search spaces: parsing the user's JSON, expanding a grid, drawing random settings.
 *
 * User form (a search node's `space` param), one entry per hyperparameter:
 *   { "learningRate": { "loguniform": [1e-4, 0.1] }, "optimizer": ["adam", "sgd"],
 *     "units": { "randint": [8, 65] }, "dropout": { "uniform": [0, 0.5] } }
 * A bare list is a choice (dask-ml: "If a list is given, it is sampled uniformly").
 *
 * Order follows scikit-learn, which dask-ml uses: ParameterGrid visits keys sorted and varies the
 * last key fastest; ParameterSampler samples without replacement from the grid when every entry
 * is a list, and otherwise draws each key in sorted order. Draws come from Philox
 * (common/tuning/random.ts), so values differ from numpy's but are reproducible everywhere.
 */
import * as z from 'zod';
import { indexOf, permutation, Uniforms, deriveSeed, SeedTag } from './random';
import type { Distribution, ParamScalar, SearchSpace, TrialParams } from './types';

export class SearchSpaceError extends Error {
  override name = 'SearchSpaceError';
}

const scalar = z.union([z.number(), z.string(), z.boolean()]);
const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const range = z.tuple([finite, finite]).refine(([lo, hi]) => lo < hi, 'low must be below high');

const distributionSchema = z.union([
  z.array(scalar).min(1, 'a choice needs at least one value'),
  z.strictObject({ choice: z.array(scalar).min(1, 'a choice needs at least one value') }),
  z.strictObject({ uniform: range }),
  z.strictObject({ loguniform: range.refine(([lo]) => lo > 0, 'loguniform needs low > 0') }),
  z.strictObject({
    randint: range.refine(([lo, hi]) => Number.isInteger(lo) && Number.isInteger(hi), 'randint bounds must be integers'),
  }),
]);

const spaceSchema = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'parameter names are identifiers'), distributionSchema)
  .refine((s) => Object.keys(s).length > 0, 'the search space is empty');

/** Formats zod issues as `path.to.field: message` lines under `where`. */
export function formatIssues(where: string, issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((i) => [where, ...i.path.map(String)].filter(Boolean).join('.') + ': ' + i.message).join('; ');
}

/** Parses the user form of a search space; throws SearchSpaceError naming the bad entry. */
export function parseSearchSpace(input: unknown, where = 'space'): SearchSpace {
  const r = spaceSchema.safeParse(input);
  if (!r.success) throw new SearchSpaceError(formatIssues(where, r.error.issues));
  const out: SearchSpace = {};
  for (const [name, d] of Object.entries(r.data)) {
    if (Array.isArray(d)) out[name] = { kind: 'choice', values: d };
    else if ('choice' in d) out[name] = { kind: 'choice', values: d.choice };
    else if ('uniform' in d) out[name] = { kind: 'uniform', low: d.uniform[0], high: d.uniform[1] };
    else if ('loguniform' in d) out[name] = { kind: 'loguniform', low: d.loguniform[0], high: d.loguniform[1] };
    else out[name] = { kind: 'randint', low: d.randint[0], high: d.randint[1] };
  }
  return out;
}

function sortedKeys(space: SearchSpace): string[] {
  return Object.keys(space).sort();
}

function choices(space: SearchSpace, what: string): [string, ParamScalar[]][] {
  return sortedKeys(space).map((k) => {
    const d = space[k];
    if (d.kind !== 'choice') throw new SearchSpaceError(`space.${k}: a ${what} needs a list of values, got a ${d.kind} distribution`);
    return [k, d.values];
  });
}

/** Number of points of an all-choice space. */
export function gridSize(space: SearchSpace): number {
  return choices(space, 'grid').reduce((n, [, v]) => n * v.length, 1);
}

/** The `index`-th grid point in scikit-learn's ParameterGrid order. */
export function gridPoint(space: SearchSpace, index: number): TrialParams {
  const entries = choices(space, 'grid');
  const out: TrialParams = {};
  let rest = index;
  for (let i = entries.length - 1; i >= 0; i--) {
    const [k, v] = entries[i];
    out[k] = v[rest % v.length];
    rest = Math.floor(rest / v.length);
  }
  // Keys in sorted order for stable display.
  return Object.fromEntries(entries.map(([k]) => [k, out[k]]));
}

/** Every grid point, in order. */
export function expandGrid(space: SearchSpace): TrialParams[] {
  const n = gridSize(space);
  if (n > MAX_GRID_TRIALS) throw new SearchSpaceError(`the grid has ${n} points, more than ${MAX_GRID_TRIALS}; use a random search with nTrials instead`);
  return Array.from({ length: n }, (_, i) => gridPoint(space, i));
}

/** Grids up to this size are sampled through a full permutation. */
const PERMUTE_LIMIT = 1 << 20;

/** Largest grid a grid search will run. */
export const MAX_GRID_TRIALS = 100_000;

function isAllChoice(space: SearchSpace): boolean {
  return Object.values(space).every((d) => d.kind === 'choice');
}

function draw(d: Distribution, u: number): ParamScalar {
  switch (d.kind) {
    case 'choice':
      return d.values[indexOf(u, d.values.length)];
    case 'uniform':
      return d.low + (d.high - d.low) * u;
    case 'loguniform': {
      const lo = Math.log(d.low);
      return Math.exp(lo + (Math.log(d.high) - lo) * u);
    }
    case 'randint':
      return d.low + indexOf(u, d.high - d.low);
  }
}

/**
 * `n` random settings (scikit-learn ParameterSampler semantics). With an all-choice space the
 * settings are distinct grid points and there are at most gridSize of them.
 */
export function sampleParams(space: SearchSpace, n: number, seed: number): TrialParams[] {
  if (!Number.isInteger(n) || n < 1) throw new SearchSpaceError(`number of trials must be a positive integer, got ${n}`);
  const sub = deriveSeed(seed, SeedTag.sample);
  if (isAllChoice(space)) {
    const size = gridSize(space);
    if (size <= PERMUTE_LIMIT) {
      const order = permutation(size, sub);
      return Array.from(order.subarray(0, Math.min(n, size)), (i) => gridPoint(space, i));
    }
    // A huge grid: draw distinct indices by rejection instead of permuting all of them.
    const u = new Uniforms(sub);
    const seen = new Set<number>();
    const out: TrialParams[] = [];
    for (let k = 0; out.length < Math.min(n, size); k++) {
      const i = indexOf(u.at(k), size);
      if (seen.has(i)) continue;
      seen.add(i);
      out.push(gridPoint(space, i));
    }
    return out;
  }
  const keys = sortedKeys(space);
  const u = new Uniforms(sub);
  const out: TrialParams[] = [];
  for (let t = 0; t < n; t++) {
    const p: TrialParams = {};
    keys.forEach((k, j) => (p[k] = draw(space[k], u.at(t * keys.length + j))));
    out.push(p);
  }
  return out;
}
