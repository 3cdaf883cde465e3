/**
 * Tuning on a dataframe, run in-process (runLocal: the task specs the workers run): read_csv of a
 * linearly separable fixture (label = sign of x1 + 2·x2 − 0.5, with a margin; 'noise' carries no
 * signal) in several partitions → dataset_from_table → split → logistic model → grid search; then
 * predict applied to the same dataframe returns it with a prediction column.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../../main/engine/compile/compile';
import { validateWorkflow } from '../../../main/engine/validate';
import { rowsOf } from '../../helpers/df-rows';
import { runLocal } from '../../helpers/local-run';

const CSV = 'test/fixtures/df/separable.csv';
const labels = readFileSync(CSV, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',')[3]);

type N = [string, string, Record<string, unknown>];
function wf(nodes: N[], edges: [string, string, string, string?][]): unknown {
  return {
    format: 'gpuflow.workflow/1',
    nodes: nodes.map(([id, op, params]) => ({ id, op, params })),
    edges: edges.map(([s, t, p, sp]) => ({ source: s, sourcePort: sp ?? 'out', target: t, targetPort: p })),
  };
}

const dataNodes = (data: Record<string, unknown> = {}): N[] => [
  ['src', 'read_csv', { path: CSV, blocksize: 1000 }],
  ['data', 'dataset_from_table', { features: ['x1', 'x2', 'noise'], target: 'label', task: 'classification', ...data }],
  ['split', 'split', { validation: 0.25, seed: 3, stratify: true }],
  ['model', 'model', { kind: 'logistic', epochs: 30, batch_size: 16 }],
  ['search', 'search', { strategy: 'grid', space: { learningRate: [0.05, 0.2] }, seed: 1 }],
];
const dataEdges: [string, string, string, string?][] = [
  ['src', 'data', 'df'],
  ['data', 'split', 'data'],
  ['split', 'search', 'data'],
  ['model', 'search', 'model'],
];

describe('model tuning on a dataframe', () => {
  it('compiles to one gather task that every trial depends on', () => {
    const c = compileWorkflow(validateWorkflow(wf(dataNodes(), dataEdges)));
    const reads = [...c.tasks.keys()].filter((k) => k.startsWith('src/'));
    expect(reads.length).toBeGreaterThan(1);
    const gather = c.tasks.get('data/gather')!;
    expect(gather.spec).toEqual({ kind: 'df', op: 'concat', params: {} });
    expect(gather.deps).toEqual(reads);
    const trials = [...c.tasks.values()].filter((t) => t.spec.kind === 'trial' && t.spec.op === 'search-trial');
    expect(trials).toHaveLength(2);
    for (const t of trials) {
      expect(t.deps).toContain('data/gather');
      expect(t.spec.kind === 'trial' && t.spec.params.data).toMatchObject({ source: { kind: 'table', ref: 'data/gather', features: ['x1', 'x2', 'noise'], target: 'label' }, split: { validationFraction: 0.25, seed: 3, stratify: true } });
    }
  });

  it('refuses missing or non-numeric columns before the run, naming node, field and columns', () => {
    const run = (data: Record<string, unknown>) => () => compileWorkflow(validateWorkflow(wf(dataNodes(data), dataEdges)));
    expect(run({ features: ['x1', 'x3'] })).toThrow(/nodes\[1\]\.params\.features.*unknown column 'x3'; available columns: x1, x2, noise, label/);
    expect(run({ target: 'lbl' })).toThrow(/nodes\[1\]\.params\.target.*unknown column 'lbl'; available columns: x1, x2, noise, label/);
    expect(run({ features: ['x1', 'label'], target: 'x2' })).toThrow(/nodes\[1\]\.params\.features.*column 'label' is string; features must be numeric.*Numeric columns: x1, x2, noise/);
    expect(run({ task: 'regression' })).toThrow(/nodes\[1\]\.params\.target.*column 'label' is string; a regression target must be numeric/);
  });

  it('a grid search learns the separable labels; predict labels every row of the dataframe', async () => {
    const nodes: N[] = [...dataNodes(), ['pred', 'predict', {}]];
    const edges: [string, string, string, string?][] = [...dataEdges, ['search', 'pred', 'model', 'best'], ['src', 'pred', 'df']];
    // The leaderboard: the search as a sink.
    const board = (await runLocal(wf(dataNodes(), dataEdges))).search;
    if (board.kind !== 'json') throw new Error('search result is not json');
    // The search's output is its leaderboard (and, where the compiler lists both keys, the best model).
    const values = Array.isArray(board.value) ? board.value : [board.value];
    const lb = values.find((v) => (v as { kind?: string }).kind === 'search-result') as { trials: number; bestScore: number; leaderboard: { metrics: Record<string, number>; status: string; error?: string }[] };
    expect(lb.trials).toBe(2);
    expect(lb.leaderboard.every((r) => !r.error)).toBe(true);
    expect(lb.leaderboard[0].status).toBe('best');
    expect(lb.leaderboard[0].metrics.accuracy).toBeGreaterThan(0.9);

    const r = await runLocal(wf(nodes, edges));
    const pred = r.pred;
    if (pred.kind !== 'table') throw new Error(`predict result is ${pred.kind}, expected a table`);
    expect(pred.columns).toEqual([
      { name: 'x1', type: 'float' }, { name: 'x2', type: 'float' }, { name: 'noise', type: 'float' }, { name: 'label', type: 'string' }, { name: 'prediction', type: 'string' },
    ]);
    const rows = rowsOf(pred);
    expect(rows).toHaveLength(labels.length);
    expect(pred.rows).toBe(labels.length);
    // Partitions keep their order: the label column is the file's.
    expect(rows.map((x) => x.label)).toEqual(labels);
    expect(new Set(rows.map((x) => x.prediction))).toEqual(new Set(['pos', 'neg']));
    const correct = rows.filter((x) => x.prediction === x.label).length;
    expect(correct / rows.length).toBeGreaterThan(0.9);
  }, 120_000);

  it('predict on the split dataset scores the validation rows of the table', async () => {
    const nodes: N[] = [...dataNodes(), ['pred', 'predict', { max_rows: 3 }]];
    const edges: [string, string, string, string?][] = [...dataEdges, ['search', 'pred', 'model', 'best'], ['split', 'pred', 'data']];
    const r = (await runLocal(wf(nodes, edges))).pred;
    if (r.kind !== 'json') throw new Error(`predict result is ${r.kind}, expected json`);
    const v = r.value as { part: string; rows: number; metrics: Record<string, number>; predictions: { prediction: string; target: string }[] };
    // Stratified 25%: round(0.25 × n) validation rows of each class.
    expect(v.part).toBe('validation');
    expect(v.rows).toBe(Math.round(0.25 * labels.filter((l) => l === 'neg').length) + Math.round(0.25 * labels.filter((l) => l === 'pos').length));
    expect(v.metrics.accuracy).toBeGreaterThan(0.9);
    expect(v.predictions).toHaveLength(3);
    expect(['pos', 'neg']).toContain(v.predictions[0].target);
  }, 120_000);

  it('predict on a dataframe without the model features is refused at compile time', () => {
    const nodes: N[] = [...dataNodes(), ['cols', 'select', { columns: ['x1', 'label'] }], ['pred', 'predict', {}]];
    const edges: [string, string, string, string?][] = [...dataEdges, ['src', 'cols', 'df'], ['search', 'pred', 'model', 'best'], ['cols', 'pred', 'df']];
    expect(() => compileWorkflow(validateWorkflow(wf(nodes, edges)))).toThrow(/nodes\[6\]\.inputs\.df.*unknown column 'x2'; available columns: x1, label/);
  });
});
