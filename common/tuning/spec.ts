/**
 * Parsing a search node's params into a SearchSpec: user JSON is parsed, never evaluated, and a
 * bad field is reported by its path ("nodes[4].params.maxIter: ...").
 */
import * as z from 'zod';
import { checkHalvingConfig } from './halving';
import { hyperbandBrackets } from './hyperband';
import { formatIssues, parseSearchSpace } from './space';
import type { SearchSpec } from './types';

export class SearchSpecError extends Error {
  override name = 'SearchSpecError';
}

const posInt = z.number().int('must be an integer').positive('must be positive');
const seed = z.number().int('must be an integer').min(0, 'must be >= 0').max(Number.MAX_SAFE_INTEGER).default(0);

const specSchema = z.discriminatedUnion('method', [
  z.strictObject({ method: z.literal('grid'), space: z.unknown(), epochs: posInt, seed }),
  z.strictObject({ method: z.literal('random'), space: z.unknown(), nTrials: posInt, epochs: posInt, seed }),
  z.strictObject({
    method: z.literal('successive-halving'),
    space: z.unknown(),
    nInitialParameters: z.union([posInt, z.literal('grid')]).default(10),
    nInitialIter: posInt,
    maxIter: posInt.optional(),
    aggressiveness: z.number().gt(1, 'must be > 1').default(3),
    seed,
  }),
  z.strictObject({
    method: z.literal('hyperband'),
    space: z.unknown(),
    maxIter: posInt.default(81),
    aggressiveness: z.number().int('must be an integer').min(2, 'must be >= 2').default(3),
    seed,
  }),
]);

/** Parses `{method, space, ...}`; `where` prefixes error paths. Defaults follow dask-ml. */
export function parseSearchSpec(input: unknown, where = 'search'): SearchSpec {
  const r = specSchema.safeParse(input);
  if (!r.success) throw new SearchSpecError(formatIssues(where, r.error.issues));
  const d = r.data;
  const space = parseSearchSpace(d.space, `${where}.space`);
  try {
    switch (d.method) {
      case 'grid':
        return { method: 'grid', space, epochs: d.epochs, seed: d.seed };
      case 'random':
        return { method: 'random', space, nTrials: d.nTrials, epochs: d.epochs, seed: d.seed };
      case 'successive-halving': {
        const spec: SearchSpec = {
          method: 'successive-halving',
          space,
          nInitialParameters: d.nInitialParameters,
          nInitialIter: d.nInitialIter,
          aggressiveness: d.aggressiveness,
          seed: d.seed,
        };
        if (d.maxIter !== undefined) spec.maxIter = d.maxIter;
        checkHalvingConfig({ n: d.nInitialParameters === 'grid' ? 1 : d.nInitialParameters, r: d.nInitialIter, eta: d.aggressiveness, maxIter: d.maxIter });
        return spec;
      }
      case 'hyperband':
        hyperbandBrackets(d.maxIter, d.aggressiveness);
        return { method: 'hyperband', space, maxIter: d.maxIter, aggressiveness: d.aggressiveness, seed: d.seed };
    }
  } catch (e) {
    throw new SearchSpecError(`${where}: ${(e as Error).message}`);
  }
}
