/**
 * Typed tuning-task params (common/tuning/op-params.ts): every 'trial' task main's compiler emits
 * parses with the schema its worker handler is registered with, and a task whose params do not
 * match is refused at the worker's boundary naming the op and the field (the old handlers took a
 * malformed describe, dataset-info or leaderboard task and returned or computed with it).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isTypedTrialOp, parseTrialOpParams } from '../../../common/tuning/op-params';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { findHandler, type HandlerContext } from '../../../worker/handlers';
import '../../../worker/kernels/tfjs/register';

const ctx: HandlerContext = {
  config: { id: 'cpu0', kind: 'cpu', label: 'cpu0', threads: 1, concurrency: 1, memoryLimit: 2 ** 30, peerToken: 'a-token-of-16-chars', backends: ['js'], heartbeatMs: 1000 },
  backends: [],
  report: () => undefined,
};

const example = JSON.parse(readFileSync('examples/tuning-random-search.json', 'utf8'));

/** The example searched by hyperband (later rounds carry the search), with a predict node and the model node left as a result too. */
function hyperbandWithPredict() {
  const doc = structuredClone(example);
  doc.nodes.find((n: { id: string }) => n.id === 'search').params = { strategy: 'hyperband', max_iter: 9, space: { learningRate: { loguniform: [0.001, 0.1] } } };
  doc.nodes.push({ id: 'predict', op: 'predict', params: { max_rows: 5 } }, { id: 'lone-model', op: 'model', params: { kind: 'mlp' } }, { id: 'lone-data', op: 'dataset_synthetic', params: {} });
  doc.edges.push({ source: 'search', sourcePort: 'best', target: 'predict', targetPort: 'model' }, { source: 'split', sourcePort: 'out', target: 'predict', targetPort: 'data' });
  return doc;
}

async function run(op: string, params: Record<string, unknown>) {
  const h = findHandler('trial', op);
  if (!h) throw new Error(`no handler for trial '${op}'`);
  return h(params, [], ctx);
}

describe('typed tuning-task params', () => {
  it('every trial task main emits parses with its schema: trials of round 0 and later, leaderboard, best model, predict, summaries', () => {
    const seen = new Set<string>();
    // The plain example's result is its leaderboard; with a predict node only the best model is read.
    const tasks = [example, hyperbandWithPredict()].flatMap((doc) => [...compileWorkflow(validateWorkflow(doc)).tasks.values()]);
    for (const t of tasks) {
      const spec = t.spec;
      if (spec.kind !== 'trial') continue;
      expect(isTypedTrialOp(spec.op), spec.op).toBe(true);
      if (!isTypedTrialOp(spec.op)) continue;
      const op = spec.op;
      expect(() => parseTrialOpParams(op, spec.params), `${t.key} (${op})`).not.toThrow();
      seen.add(op);
    }
    expect([...seen].sort()).toEqual(['dataset-info', 'describe', 'predict', 'search-best-model', 'search-leaderboard', 'search-trial']);
    // A later hyperband round carries the parsed search; the schema keeps it whole.
    const later = compileWorkflow(validateWorkflow(hyperbandWithPredict())).tasks.get('search/b2r1(0)')!.spec;
    expect(later.kind === 'trial' && parseTrialOpParams('search-trial', later.params).search).toMatchObject({ method: 'hyperband', maxIter: 9, aggressiveness: 3, space: { learningRate: { kind: 'loguniform', low: 0.001, high: 0.1 } } });
  });

  it('a describe task of a model with an unknown kind is refused naming model.base.kind (the old handler returned it)', async () => {
    await expect(run('describe', { model: { base: { kind: 'forest' }, epochs: 4 } })).rejects.toThrow(/trial 'describe': params do not match its schema: model\.base\.kind/);
    const ok = await run('describe', { model: { base: { kind: 'mlp', hiddenLayers: [8] }, epochs: 4 } });
    expect(ok.value).toEqual({ kind: 'json', value: { model: { base: { kind: 'mlp', hiddenLayers: [8] }, epochs: 4 } } });
  });

  it('a dataset-info task with a misspelt sample count is refused naming data.source.nSamples', async () => {
    const data = { source: { kind: 'classification', nSample: 100, seed: 1 }, task: 'classification', nFeatures: 20, nRows: 100 };
    await expect(run('dataset-info', { data })).rejects.toThrow(/trial 'dataset-info': params do not match its schema: data\.source\.nSamples/);
  });

  it('a leaderboard task whose search has an unknown method is refused naming search.method', async () => {
    const search = { method: 'bayes', space: {}, epochs: 2, seed: 0 };
    const plan = { method: 'grid', nTrials: 0, totalEpochs: 0, brackets: [] };
    await expect(run('search-leaderboard', { search, metric: 'accuracy', plan, node: 's' })).rejects.toThrow(/trial 'search-leaderboard': params do not match its schema: search\.method/);
  });

  it('a trial task with a renamed field is refused naming it (round for rounds)', async () => {
    const base = { base: { kind: 'mlp' }, metric: 'accuracy', data: { source: { kind: 'regression', nSamples: 10, seed: 0 }, split: { validationFraction: 0.2, seed: 0 } }, bracket: 0, index: 0 };
    await expect(run('search-trial', { ...base, rounds: 0 })).rejects.toThrow(/trial 'search-trial': params do not match its schema: .*round/);
  });
});
