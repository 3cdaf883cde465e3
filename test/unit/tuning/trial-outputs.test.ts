/**
 * Issue 26 (the search over four GPUs): a trial task's output carries only what a later task
 * reads. Every trial used to pack its weights and optimizer state into its output (15 MB of base64
 * at the MNIST-shaped example's size), which the worker sized and the leaderboard fetched from
 * other workers, though the leaderboard reads only metrics. Now the compiler says per task what
 * the output keeps ('none', 'weights', 'resume'), from what reads it: a next rung resumes
 * (optimizer state), save_to saves the best model as model files are (optimizer state), a predict
 * reads the best model's weights; otherwise nothing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../common/arrays';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { findHandler, type HandlerContext } from '../../../worker/handlers';
import type { PackedModel } from '../../../worker/kernels/tfjs/pack';
import '../../../worker/kernels/tfjs/register';

const example = JSON.parse(readFileSync('examples/tuning-random-search.json', 'utf8'));

interface Doc {
  nodes: Array<{ id: string; op: string; params: Record<string, unknown> }>;
  edges: Array<Record<string, string>>;
}

function doc(search: Record<string, unknown> = {}, predict = false): Doc {
  const d = structuredClone(example) as Doc;
  Object.assign(d.nodes.find((n) => n.id === 'search')!.params, search);
  if (predict) {
    d.nodes.push({ id: 'predict', op: 'predict', params: { max_rows: 5 } });
    d.edges.push(
      { source: 'search', sourcePort: 'best', target: 'predict', targetPort: 'model' },
      { source: 'split', sourcePort: 'out', target: 'predict', targetPort: 'data' },
    );
  }
  return d;
}

/** keepModel of every search-trial task, by task key. */
function keeps(d: Doc, params: Record<string, number> = {}): Map<string, unknown> {
  const c = compileWorkflow(validateWorkflow(d, params));
  const m = new Map<string, unknown>();
  for (const [key, t] of c.tasks) if (t.spec.kind === 'trial' && t.spec.op === 'search-trial') m.set(key, (t.spec.params as { keepModel?: unknown }).keepModel);
  return m;
}

describe('what a trial task output keeps of its model', () => {
  it('a random search read only by its leaderboard keeps no model; save_to keeps weights and optimizer state; a predict the weights', () => {
    const none = keeps(doc(), { trials: 5 });
    expect(none.size).toBe(5);
    expect(new Set(none.values())).toEqual(new Set(['none']));
    expect(new Set(keeps(doc({ save_to: 'best-model' }), { trials: 5 }).values())).toEqual(new Set(['resume']));
    expect(new Set(keeps(doc({}, true), { trials: 5 }).values())).toEqual(new Set(['weights']));
  });

  it('successive halving: rounds a next rung resumes from keep optimizer state, the last round only what its readers need', () => {
    const halving = { strategy: 'successive_halving', n_iter: 4, aggressiveness: 2, space: { learningRate: [0.0001, 0.001, 1, 0.01] } };
    const k = keeps(doc(halving));
    // Rungs 4×1, 2×2, 1×4 (search-compile.test.ts).
    expect([...k.entries()]).toEqual([
      ...[0, 1, 2, 3].map((i) => [`search/b0r0(${i})`, 'resume']),
      ['search/b0r1(0)', 'resume'],
      ['search/b0r1(1)', 'resume'],
      ['search/b0r2(0)', 'none'],
    ]);
    expect(keeps(doc(halving, true)).get('search/b0r2(0)')).toBe('weights');
  });

  it('the worker packs what keepModel says: nothing, the weights alone (the same bytes), or weights and Adam state', async () => {
    const ctx: HandlerContext = {
      config: {
        id: 'cpu0',
        kind: 'cpu',
        label: 'cpu0',
        threads: 1,
        concurrency: 1,
        memoryLimit: 2 ** 30,
        peerToken: 'a-token-of-16-chars',
        backends: ['js'],
        heartbeatMs: 1000,
      },
      backends: [],
      report: () => undefined,
    };
    const c = compileWorkflow(validateWorkflow(doc({ save_to: 'x' }), { trials: 1 }));
    const spec = c.tasks.get('search/trial(0)')!.spec;
    if (spec.kind !== 'trial') throw new Error('not a trial task');
    const params = spec.params as { trial: { model: object } };
    const h = findHandler('trial', 'search-trial');
    if (!h) throw new Error('no search-trial handler');
    const out = async (keepModel: string) => {
      // Adam, so the state (iter, m, v) is twice the weights and easy to tell apart.
      const r = await h({ ...params, keepModel, trial: { ...params.trial, model: { ...params.trial.model, optimizer: 'adam' } } }, [], ctx);
      if (r.value.kind !== 'json') throw new Error('not a json output');
      return r.value.value as { record: { score: number }; model: PackedModel | null } & JsonValue;
    };
    const [none, weights, resume] = [await out('none'), await out('weights'), await out('resume')];
    expect(none.model).toBeNull();
    expect(weights.record).toEqual(none.record);
    expect(resume.record).toEqual(none.record);
    const names = (p: PackedModel | null) => (p?.artifacts.weightSpecs as Array<{ name: string }>).map((w) => w.name);
    const model = names(weights.model);
    // Adam's state: iter, then m and v per variable; the weights alone are the model's variables.
    expect(names(resume.model)).toHaveLength(3 * model.length + 1);
    expect(names(resume.model).slice(0, model.length)).toEqual(model);
    // Same weight bytes: the weights' base64 is the prefix of the state's.
    const bytes = Buffer.from(weights.model!.weights, 'base64');
    expect(Buffer.from(resume.model!.weights, 'base64').subarray(0, bytes.length).equals(bytes)).toBe(true);
  });
});
