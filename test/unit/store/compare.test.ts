import { describe, expect, it } from 'vitest';
import { compareRuns, jsonDiff } from '../../../main/store/compare';
import type { RunRecord } from '../../../common/store-types';
import type { WorkflowDoc } from '../../../common/workflow';

const doc = (n: number, x: number): WorkflowDoc => ({
  format: 'gpuflow.workflow/1',
  name: 'w',
  nodes: [
    { id: 'gen', op: 'array.random', params: { n }, position: { x, y: 0 } },
    { id: 'sum', op: 'array.sum', params: {} },
  ],
  edges: [{ source: 'gen', sourcePort: 'out', target: 'sum', targetPort: 'in' }],
});

function run(over: Partial<RunRecord>): RunRecord {
  return {
    id: 1, uuid: 'u', workflowHash: 'h1', workflowName: 'w', params: {}, seeds: 1, devices: [], backends: {}, machine: 'm',
    host: 'h', pid: 1, started: 1000, ended: 2000, status: 'done', resultDigest: 'd', results: null, error: null,
    replayOf: null, eventsTotal: 0, eventsDropped: 0, ...over,
  };
}

describe('jsonDiff', () => {
  it('matches arrays of objects by id', () => {
    const a = [{ id: 'x', v: 1 }, { id: 'y', v: 2 }];
    const b = [{ id: 'new', v: 0 }, { id: 'x', v: 1 }, { id: 'y', v: 3 }];
    expect(jsonDiff({ nodes: a }, { nodes: b })).toEqual([
      { path: 'nodes[id=y].v', a: 2, b: 3 },
      { path: 'nodes[id=new]', a: undefined, b: { id: 'new', v: 0 } },
    ]);
  });

  it('compares other arrays by index and quotes odd keys', () => {
    expect(jsonDiff({ 'a b': [1, 2] }, { 'a b': [1, 5, 6] })).toEqual([
      { path: '["a b"][1]', a: 2, b: 5 },
      { path: '["a b"][2]', a: undefined, b: 6 },
    ]);
  });
});

describe('compareRuns', () => {
  it('reports what differs and ignores layout and float noise', () => {
    const a = { run: run({ params: { N: 10 }, devices: ['gpu0'], results: { mean: 0.1 + 0.2 } }), workflow: doc(10, 0) };
    const b = {
      run: run({ id: 2, workflowHash: 'h2', params: { N: 20 }, devices: ['gpu0', 'gpu1'], ended: 1500, resultDigest: 'd', results: { mean: 0.3 }, status: 'done' }),
      workflow: doc(20, 99),
    };
    const c = compareRuns(a, b);
    expect(c.sameWorkflow).toBe(false);
    expect(c.workflow).toEqual([{ path: 'nodes[id=gen].params.n', a: 10, b: 20 }]);
    expect(c.params).toEqual([{ path: 'N', a: 10, b: 20 }]);
    expect(c.devices).toEqual([{ path: '[1]', a: undefined, b: 'gpu1' }]);
    expect(c.backends).toEqual([]);
    expect(c.times).toEqual({ aMs: 1000, bMs: 500, ratio: 0.5 });
    expect(c.sameDigest).toBe(true);
    expect(c.results).toEqual([]);
  });
});
