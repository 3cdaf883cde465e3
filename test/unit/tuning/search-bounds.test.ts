/**
 * A search node's trial count is bounded before any trial is built (issue 29 item 8): n_iter had
 * no limit, 50 000 random trials froze serve for 22 s and 10^6 ended in a stack overflow. The
 * refusal names the param that sets the count; a search under the limit compiles as before.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { MAX_SEARCH_TRIALS } from '../../../common/tuning/trial-count';
import { WorkflowError } from '../../../main/engine/errors';

function searchDoc(params: Record<string, unknown>): unknown {
  const doc = JSON.parse(readFileSync('examples/tuning-random-search.json', 'utf8')) as { nodes: Array<{ op: string; params: Record<string, unknown> }> };
  const s = doc.nodes.find((n) => n.op === 'search')!;
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) delete s.params[k];
    else s.params[k] = v;
  }
  return doc;
}

function refusal(doc: unknown): string {
  try {
    compileWorkflow(validateWorkflow(doc));
  } catch (e) {
    return e instanceof WorkflowError ? e.message : `not a WorkflowError: ${String(e)}`;
  }
  return 'compiled';
}

describe('search trial bounds', () => {
  it('refuses n_iter over the limit naming params.n_iter, for 20 000 and 10^6 trials alike', () => {
    for (const n of [MAX_SEARCH_TRIALS * 2, 1_000_000]) {
      expect(refusal(searchDoc({ strategy: 'random', n_iter: n }))).toBe(
        `nodes[3].params.n_iter (node 'search'): the search would train ${n} models, more than ${MAX_SEARCH_TRIALS} (the limit per search node): use a smaller n_iter`,
      );
    }
    expect(refusal(searchDoc({ strategy: 'successive_halving', n_iter: MAX_SEARCH_TRIALS + 1 }))).toMatch(/params\.n_iter .*would train 10001 models/);
  });

  it('refuses a grid and a Hyperband whose model count is over the limit, naming space and max_iter', () => {
    const values = Array.from({ length: 11 }, (_, i) => i + 1);
    // 11^4 = 14 641 grid points.
    expect(refusal(searchDoc({ strategy: 'grid', space: { units: values, batchSize: values, layers: values, epochs: values } }))).toMatch(/params\.space \(node 'search'\): the search would train 14641 models/);
    // Hyperband with max_iter 3^12: 13 brackets, over 800 000 models.
    expect(refusal(searchDoc({ strategy: 'hyperband', max_iter: 3 ** 12, n_iter: undefined }))).toMatch(/params\.max_iter \(node 'search'\): the search would train \d+ models, more than 10000/);
  });

  it('a search of 2 000 trials, under the limit, compiles into 2 000 trial tasks', () => {
    const c = compileWorkflow(validateWorkflow(searchDoc({ strategy: 'random', n_iter: 2000 })));
    expect([...c.tasks.values()].filter((t) => t.spec.kind === 'trial' && t.spec.op === 'search-trial')).toHaveLength(2000);
  });
});
