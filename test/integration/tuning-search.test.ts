/**
 * Searches run as tasks on real worker processes (1 CPU + 3 virtual GPU workers, wasm or cpu
 * TF.js): trials spread over every worker, the same seed gives the same leaderboard, and
 * successive halving keeps the planted best learning rate and saves its model.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../common/events';
import { discover } from '../../main/cluster/discovery';
import { forkLauncher } from '../../main/cluster/fork-launcher';
import { Engine } from '../../main/engine/engine';
import { validateWorkflow } from '../../main/engine/validate';

const example = JSON.parse(readFileSync('examples/tuning-random-search.json', 'utf8'));

interface Row { trialId: string; params: unknown; epochs: number; score: number; status: string; rank: number }
interface SearchResult { bestParams: Record<string, unknown>; best: { epochs: number; trialId: string }; leaderboard: Row[]; trials: number; savedTo: string | null }

let engine: Engine;
const dir = mkdtempSync(path.join(tmpdir(), 'gpuflow-tuning-'));

beforeAll(async () => {
  const d = await discover({ nvidiaSmi: '/nonexistent', devicesEnv: '' });
  engine = new Engine(d, { launcher: forkLauncher(), virtualGpus: 3, backends: ['js'], threadsPerCpuWorker: 1 });
  await engine.start();
}, 60_000);

afterAll(async () => {
  await engine?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

async function run(doc: unknown, params: Record<string, number> = {}) {
  const h = engine.run(validateWorkflow(doc, params));
  const events: EngineEvent[] = [];
  const unsub = engine.bus.subscribe((e) => {
    if ('runId' in e && e.runId === h.runId) events.push(e);
  });
  const r = await h.result;
  unsub();
  expect(r.error).toBeUndefined();
  expect(r.status).toBe('finished');
  const v = r.results.search;
  if (v.kind !== 'json') throw new Error('search result is not json');
  return { result: v.value as SearchResult, events };
}

describe('tuning searches on worker processes', () => {
  it('a 24-trial random search uses every worker, streams epochs, and repeats exactly with the same seed', async () => {
    const params = { trials: 24, epochs: 2, rows: 160 };
    const a = await run(example, params);
    const trained = a.events.filter((e): e is Extract<EngineEvent, { type: 'task' }> => e.type === 'task' && e.op.startsWith('train'));
    expect(trained).toHaveLength(24);
    expect(new Set(trained.map((e) => e.worker))).toEqual(new Set(['cpu0', 'vgpu0', 'vgpu1', 'vgpu2']));
    // A virtual GPU has no GPU: the backend it trained on says so.
    expect(trained.filter((e) => e.worker.startsWith('vgpu')).every((e) => /GPU worker training on a CPU backend/.test(e.backend))).toBe(true);
    // Placement is the run's record (the events above), never the result: its digest must not vary.
    expect(a.result).not.toHaveProperty('workers');
    for (const r of a.result.leaderboard) expect(Object.keys(r)).not.toEqual(expect.arrayContaining(['worker']));
    const progress = a.events.filter((e) => e.type === 'task-progress');
    expect(progress).toHaveLength(24 * 2);
    expect(progress[0].type === 'task-progress' && progress[0].payload).toMatchObject({ epoch: expect.any(Number), loss: expect.any(Number), metric: 'accuracy', score: expect.any(Number) });

    expect(a.result.trials).toBe(24);
    expect(a.result.leaderboard).toHaveLength(24);
    expect(a.result.leaderboard.filter((r) => r.status === 'best')).toHaveLength(1);
    const scores = a.result.leaderboard.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));

    const b = await run(example, params);
    expect(b.result.leaderboard).toEqual(a.result.leaderboard);
  }, 120_000);

  it('successive halving keeps the planted best learning rate and saves its model', async () => {
    const saveTo = path.join(dir, 'best');
    const doc = {
      format: 'gpuflow.workflow/1',
      nodes: [
        { id: 'data', op: 'dataset_synthetic', params: { rows: 240, features: 4, informative: 2, separable: true, class_sep: 1, seed: 5 } },
        { id: 'split', op: 'split', params: { validation: 0.25, seed: 5, stratify: true } },
        { id: 'lr', op: 'model', params: { kind: 'logistic', optimizer: 'sgd', batch_size: 16 } },
        // Plain SGD on a separable set: lr = 1 learns in an epoch, the small ones barely move.
        { id: 'search', op: 'search', params: { strategy: 'successive_halving', aggressiveness: 2, metric: 'log-loss', seed: 3, save_to: saveTo, space: { learningRate: [0.0001, 0.001, 1, 0.01] } } },
      ],
      edges: [
        { source: 'data', sourcePort: 'out', target: 'split', targetPort: 'data' },
        { source: 'split', sourcePort: 'out', target: 'search', targetPort: 'data' },
        { source: 'lr', sourcePort: 'out', target: 'search', targetPort: 'model' },
      ],
    };
    const { result, events } = await run(doc);
    expect(result.bestParams).toEqual({ learningRate: 1 });
    expect(result.best.epochs).toBe(4);
    expect(result.leaderboard.filter((r) => r.status === 'stopped by successive halving')).toHaveLength(3);
    // Rounds 4×1, 2×2, 1×4: each continuing trial trains only its new epochs (weights travel).
    const epochsRun = events.filter((e) => e.type === 'task-progress').length;
    expect(epochsRun).toBe(4 * 1 + 2 * 1 + 1 * 2);
    expect(result.savedTo).toBe(saveTo);
    const json = JSON.parse(readFileSync(path.join(saveTo, 'model.json'), 'utf8'));
    expect(json.userDefinedMetadata.gpuflow).toMatchObject({ trialId: result.best.trialId, epochs: 4, spec: { learningRate: 1, kind: 'logistic' } });
    expect(existsSync(path.join(saveTo, 'weights.bin'))).toBe(true);

    // The same search feeding a predict node: the best model on the validation rows scores what
    // the leaderboard said (the search node is no longer a sink, so only predict reports).
    const withPredict = structuredClone(doc);
    withPredict.nodes.push({ id: 'predict', op: 'predict', params: { max_rows: 5 } } as never);
    withPredict.edges.push({ source: 'search', sourcePort: 'best', target: 'predict', targetPort: 'model' }, { source: 'split', sourcePort: 'out', target: 'predict', targetPort: 'data' });
    const h = engine.run(validateWorkflow(withPredict));
    const r = await h.result;
    expect(r.error).toBeUndefined();
    const p = r.results.predict;
    if (p.kind !== 'json') throw new Error('predict result is not json');
    const pv = p.value as { trialId: string; rows: number; metrics: Record<string, number>; predictions: { prediction: number; probabilities: number[] }[] };
    expect(pv.trialId).toBe(result.best.trialId);
    expect(pv.rows).toBe(60);
    expect(-pv.metrics['log-loss']).toBe(result.leaderboard[0].score);
    expect(pv.predictions).toHaveLength(5);
    expect(pv.predictions[0].probabilities).toHaveLength(2);
  }, 120_000);
});
