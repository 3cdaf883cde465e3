import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { explain } from '../../../main/engine/compile/explain';
import { validateWorkflow } from '../../../main/engine/validate';

const example = JSON.parse(readFileSync('examples/tuning-random-search.json', 'utf8'));

/** The example with the search node's params replaced. */
function withSearch(params: Record<string, unknown>, model: Record<string, unknown> = {}) {
  const doc = structuredClone(example);
  const s = doc.nodes.find((n: { id: string }) => n.id === 'search');
  s.params = params;
  Object.assign(doc.nodes.find((n: { id: string }) => n.id === 'mlp').params, model);
  return doc;
}

describe('search nodes compile to static trial tasks', () => {
  it('the example: one task per random trial, then the leaderboard, which is the output', () => {
    const c = compileWorkflow(validateWorkflow(example, { trials: 24 }));
    const ex = explain(c);
    expect(ex.byOp).toEqual({ 'train →4ep': 24, leaderboard: 1 });
    expect(c.outputs).toEqual({ search: { kind: 'value', key: 'search/leaderboard' } });
    expect(c.tasks.get('search/leaderboard')!.deps).toHaveLength(24);
    const t0 = c.tasks.get('search/trial(0)')!.spec;
    expect(t0.kind === 'trial' && t0.params.trial).toMatchObject({ trialId: 't0', epochs: 4, metric: 'accuracy' });
  });

  it('hyperband: explain lists the planned trials per bracket and rung (dask-ml max_iter 9, aggressiveness 3)', () => {
    const wf = validateWorkflow(withSearch({ strategy: 'hyperband', max_iter: 9, space: { learningRate: { loguniform: [0.001, 0.1] } } }));
    const ex = explain(compileWorkflow(wf));
    // Brackets (s: n, r) = 2: (9, 1), 1: (5, 3), 0: (3, 9); rungs 9×1, 3×3, 1×9 | 5×3, 1×9 | 3×9.
    expect(ex.byOp).toEqual({
      'train b2/r0 →1ep': 9, 'train b2/r1 →3ep': 3, 'train b2/r2 →9ep': 1,
      'train b1/r0 →3ep': 5, 'train b1/r1 →9ep': 1,
      'train b0/r0 →9ep': 3,
      leaderboard: 1,
    });
    const c = compileWorkflow(wf);
    // A later round depends on the whole previous round of its bracket; the leaderboard on each bracket's last round.
    expect(c.tasks.get('search/b2r1(0)')!.deps).toEqual(Array.from({ length: 9 }, (_, i) => `search/b2r0(${i})`));
    expect(c.tasks.get('search/leaderboard')!.deps).toEqual(['search/b2r2(0)', 'search/b1r1(0)', 'search/b0r0(0)', 'search/b0r0(1)', 'search/b0r0(2)']);
  });

  it('successive halving over a grid starts the whole grid', () => {
    const ex = explain(compileWorkflow(validateWorkflow(withSearch({ strategy: 'successive_halving', aggressiveness: 2, space: { learningRate: [0.0001, 0.001, 1, 0.01] } }))));
    expect(ex.byOp).toEqual({ 'train b0/r0 →1ep': 4, 'train b0/r1 →2ep': 2, 'train b0/r2 →4ep': 1, leaderboard: 1 });
  });

  it('bad settings are refused before the run, naming node and field', () => {
    expect(() => compileWorkflow(validateWorkflow(withSearch({ strategy: 'random', metric: 'r2', space: { learningRate: [0.1] } })))).toThrow(/nodes\[3\]\.params\.metric.*: 'r2' does not apply to classification/);
    expect(() => compileWorkflow(validateWorkflow(withSearch({ strategy: 'random', space: { learningRate: { loguniform: [0, 1] } } })))).toThrow(/nodes\[3\]\.params\.space.*loguniform needs low > 0/);
    expect(() => compileWorkflow(validateWorkflow(withSearch({ strategy: 'random', space: { momentum: [0.9] } })))).toThrow(/nodes\[3\]\.params\.space.*momentum: not a tunable model parameter/);
    expect(() => compileWorkflow(validateWorkflow(withSearch({ strategy: 'random', space: { learningRate: [0.1] } }, { kind: 'linear' })))).toThrow(/nodes\[3\]\.inputs\.model.*: a linear model needs a regression dataset/);
  });

  it('a dataset left unconnected reports a summary task', () => {
    const doc = structuredClone(example);
    doc.nodes = doc.nodes.filter((n: { id: string }) => n.id === 'data');
    doc.edges = [];
    const c = compileWorkflow(validateWorkflow(doc));
    expect([...c.tasks.values()].map((t) => t.spec)).toEqual([{ kind: 'trial', op: 'dataset-info', params: { data: { source: expect.objectContaining({ kind: 'classification', nSamples: 400 }), task: 'classification', nFeatures: 8, nRows: 400 } } }]);
  });
});
