/** Plain validation messages, benchmark chart numbers, progress segments and stream colours (renderer/logic). */
import { describe, expect, it } from 'vitest';
import type { BenchmarkRecord } from '../../../common/store-types';
import { axisMax, benchRows, sameWorkflow } from '../../../renderer/logic/bench-chart';
import { formatDate } from '../../../renderer/logic/format';
import { fitLabel, laneHeight, AXIS_H, MAX_LANE_H, MIN_LANE_H } from '../../../renderer/logic/stream-draw';
import { OpColors } from '../../../renderer/logic/op-colors';
import { nextThemeChoice, resolveTheme } from '../../../renderer/logic/theme';
import { placeErrors } from '../../../renderer/logic/validation-errors';
import { progressSegments } from '../../../renderer/state/node-tasks';

describe('placeErrors', () => {
  it('turns a server path into words on the node and under the field', () => {
    const p = placeErrors(["nodes[1].params.value (node 'scalar_op'): is required", "nodes[0].params.chunks (node 'x'): [0] must be positive, got -1", 'edges: something general']);
    expect(p.byNode.scalar_op).toEqual(['value is required']);
    expect(p.byField.scalar_op).toEqual({ value: 'value is required' });
    expect(p.byNode.x).toEqual(['chunks[0] must be positive, got -1']);
    expect(p.byField.x.chunks).toBe('chunks[0] must be positive, got -1');
    expect(p.general).toEqual(['edges: something general']);
  });
  it('keeps one copy of a repeated message', () => {
    expect(placeErrors(["a (node 'n'): is bad", "a (node 'n'): is bad"]).byNode.n).toEqual(['a is bad']);
  });
});

const rec = (over: Partial<BenchmarkRecord>): BenchmarkRecord =>
  ({
    id: 1,
    uuid: 'u',
    workflowHash: 'h',
    workflowName: 'w',
    machine: 'm',
    host: 'h',
    created: 0,
    params: {},
    warmup: 0,
    repetitions: 3,
    digestsAgree: true,
    toleranceDigits: 12,
    configs: [
      { name: '1 CPU core', available: true, unavailableReason: null, virtual: false, workers: 1, times: [900, 1000, 1200], median: 1000, spread: 0.3, digest: 'd', backends: {} },
      { name: 'all GPUs', available: true, unavailableReason: null, virtual: true, workers: 3, times: [240, 250, 300], median: 250, spread: 0.24, digest: 'd', backends: {} },
      { name: '1 GPU', available: false, unavailableReason: 'no GPU', virtual: false, workers: 0, times: [], median: null, spread: null, digest: null, backends: {} },
    ],
    ...over,
  }) as BenchmarkRecord;

describe('benchRows', () => {
  it('gives min and max whiskers and the speedup against one CPU core', () => {
    const [one, all, gpu] = benchRows(rec({}));
    expect([one.min, one.max, one.speedup]).toEqual([900, 1200, 1]);
    expect([all.min, all.max, all.speedup, all.virtual]).toEqual([240, 300, 4, true]);
    expect([gpu.available, gpu.reason, gpu.speedup]).toEqual([false, 'no GPU', null]);
    expect(axisMax(benchRows(rec({})))).toBe(2000);
  });
  it('lists earlier benchmarks of the same workflow name, newest first', () => {
    const list = [rec({ id: 1, created: 5 }), rec({ id: 2, created: 9 }), rec({ id: 3, workflowName: 'other' })];
    expect(sameWorkflow(list, list[0]).map((b) => b.id)).toEqual([2, 1]);
  });
});

describe('progressSegments', () => {
  it('splits total into done, running, erred and waiting that add up', () => {
    expect(progressSegments(3, 10, 2, 1)).toEqual({ done: 3, running: 2, erred: 1, cancelled: 0, waiting: 4, total: 10 });
    const s = progressSegments(9, 10, 5, 5);
    expect(s.done + s.running + s.erred + s.waiting).toBe(10);
    // A cancelled run: nothing is left waiting, what was not done or failed was stopped.
    expect(progressSegments(3, 10, 0, 1, true)).toEqual({ done: 3, running: 0, erred: 1, cancelled: 6, waiting: 0, total: 10 });
  });
});

describe('stream drawing helpers', () => {
  it('gives the first ten ops of a run ten different colours', () => {
    const c = new OpColors();
    expect(new Set(Array.from({ length: 10 }, (_, i) => c.of(`op${i}`))).size).toBe(10);
    expect(c.of('transfer')).not.toBe(c.of('a'));
  });
  it('fills the panel height within readable lane bounds', () => {
    expect(laneHeight(AXIS_H + 4 * 50, 4)).toBe(50);
    expect(laneHeight(100, 40)).toBe(MIN_LANE_H);
    expect(laneHeight(2000, 1)).toBe(MAX_LANE_H);
  });
  it('cuts a long lane label with an ellipsis', () => {
    expect(fitLabel('virtual GPU 0 (CPU-backed)', 62)).toBe('virtual G…');
    expect(fitLabel('CPU', 62)).toBe('CPU');
  });
});

describe('themes and dates', () => {
  it('follows the OS while "system", cycles system → light → dark', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('light', true)).toBe('light');
    expect(['system', 'light', 'dark'].map((c) => nextThemeChoice(c as 'system'))).toEqual(['light', 'dark', 'system']);
  });
  it('shows a timestamp as a local date and time', () => {
    const t = new Date(2026, 10, 25, 3, 4, 5).getTime();
    expect(formatDate(t)).toBe('2026-11-25 03:04:05');
  });
});
