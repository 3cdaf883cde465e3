import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../common/events';
import { decodeTable, formatCell } from '../../../renderer/logic/arrow-table';
import { curveScale, toPixels } from '../../../renderer/logic/curve-scale';
import { formatParams, isStopped, LEADERBOARD_COLUMNS, leaderboardCell, paramTexts, readSearchResult, sortLeaderboard, type LeaderRow } from '../../../renderer/logic/leaderboard';
import { sortRows } from '../../../renderer/logic/table-sort';
import { virtualWindow } from '../../../renderer/logic/virtual-window';
import { TrialCurves } from '../../../renderer/state/trial-curves';

describe('decodeTable', () => {
  it('decodes base64 Arrow IPC into columns, types and cells', () => {
    const t = tableFromArrays({ x: Float64Array.from([1.5, 2, 3]), name: ['a', 'b', null] });
    const b64 = Buffer.from(tableToIPC(t, 'stream')).toString('base64');
    const d = decodeTable(b64);
    expect(d.numRows).toBe(3);
    expect(d.columns.map((c) => c.name)).toEqual(['x', 'name']);
    expect(d.columns[0].type).toBe('float64');
    expect(d.columns[0].arrowType).toBe('Float64');
    expect(d.cell(0, 0)).toBe('1.5');
    expect(d.cell(1, 1)).toBe('b');
    expect(d.cell(2, 1)).toBe('');
  });
  it('formats bigints and non-finite numbers', () => {
    expect(formatCell(10n)).toBe('10');
    expect(formatCell(NaN)).toBe('NaN');
  });
});

describe('virtualWindow', () => {
  it('renders only the rows in view plus overscan', () => {
    const w = virtualWindow(0, 24 * 22, 22, 10_000, 4);
    expect(w.start).toBe(0);
    expect(w.end).toBe(29);
    expect(w.totalHeight).toBe(220_000);
    const m = virtualWindow(5000 * 22 + 5, 24 * 22, 22, 10_000, 4);
    expect(m.start).toBe(4996);
    expect(m.end - m.start).toBeLessThanOrEqual(34);
    expect(m.offsetTop).toBe(4996 * 22);
  });
  it('clamps past the end and handles tiny or empty tables', () => {
    const w = virtualWindow(1e9, 220, 22, 100, 2);
    expect(w.end).toBe(100);
    expect(w.start).toBeGreaterThan(80);
    expect(virtualWindow(0, 220, 22, 3).end).toBe(3);
    expect(virtualWindow(0, 220, 22, 0)).toEqual({ start: 0, end: 0, offsetTop: 0, totalHeight: 0 });
  });
});

describe('leaderboard', () => {
  const row = (trialId: string, rank: number | null, score: number | null, status: string): LeaderRow => ({ trialId, rank, score, status, bracket: 0, params: {}, epochs: 1, worker: null });
  it('sorts best first, unranked (failed) last', () => {
    const s = sortLeaderboard([row('t3', null, null, 'failed'), row('t2', 2, 0.5, 'stopped by successive halving'), row('t1', 1, 0.9, 'best'), row('t10', 2, 0.5, 'finished')]);
    expect(s.map((r) => r.trialId)).toEqual(['t1', 't2', 't10', 't3']);
    expect(isStopped(s[1])).toBe(true);
  });
  it('reads a search result and ignores other json', () => {
    expect(readSearchResult({ a: 1 })).toBeNull();
    const v = readSearchResult({ kind: 'search-result', strategy: 'hyperband', metric: 'accuracy', trials: 2, bestParams: { lr: 0.01 }, bestScore: 0.9, leaderboard: [{ rank: 2, trialId: 'b', params: { lr: 0.1 }, epochs: 3, score: 0.7, status: 'stopped by successive halving' }, { rank: 1, trialId: 'a', params: { lr: 0.01 }, epochs: 9, score: 0.9, status: 'best' }] });
    expect(v?.rows.map((r) => r.trialId)).toEqual(['a', 'b']);
    expect(v?.bestScore).toBe(0.9);
  });
});

describe('leaderboard sorted by a header click', () => {
  const rows: LeaderRow[] = [
    { trialId: 't1', rank: 1, score: 0.9, status: 'best', bracket: 0, params: { lr: 0.01 }, epochs: 9, worker: null },
    { trialId: 't10', rank: 2, score: 0.7, status: 'finished', bracket: 0, params: { lr: 0.1 }, epochs: 3, worker: null },
    { trialId: 't2', rank: null, score: null, status: 'failed', bracket: 0, params: { lr: 1 }, epochs: 12, worker: null },
  ];
  const by = (name: (typeof LEADERBOARD_COLUMNS)[number], dir: 'asc' | 'desc') =>
    sortRows(rows.length, (r, c) => leaderboardCell(rows[r], c), LEADERBOARD_COLUMNS.indexOf(name), dir).map((i) => rows[i].trialId);
  it('sorts trial ids as a person reads them (t2 before t10)', () => {
    expect(by('trial', 'asc')).toEqual(['t1', 't2', 't10']);
    expect(by('trial', 'desc')).toEqual(['t10', 't2', 't1']);
  });
  it('sorts epochs and scores by value, an unscored trial last either way', () => {
    expect(by('epochs', 'asc')).toEqual(['t10', 't1', 't2']);
    expect(by('score', 'asc')).toEqual(['t10', 't1', 't2']);
    expect(by('score', 'desc')).toEqual(['t1', 't10', 't2']);
    expect(by('#', 'desc')).toEqual(['t10', 't1', 't2']);
  });
  it('sorts status and params by their text', () => {
    expect(by('status', 'asc')).toEqual(['t1', 't2', 't10']);
    expect(by('params', 'desc')).toEqual(['t2', 't10', 't1']);
  });
});

describe('leaderboard params', () => {
  it('gives one text a param, fractions to 4 significant digits, so the table wraps between params', () => {
    const p = { activation: 'relu', dropout: 0.0601834, learningRate: 0.026762, units: 8 };
    expect(paramTexts(p)).toEqual(['activation=relu', 'dropout=0.06018', 'learningRate=0.02676', 'units=8']);
    expect(formatParams(p)).toBe('activation=relu, dropout=0.06018, learningRate=0.02676, units=8');
  });
});

describe('curve scaling', () => {
  it('maps the data range onto the plot, y up', () => {
    const s = curveScale([[{ epoch: 1, value: 2 }, { epoch: 3, value: 1 }]], { width: 120, height: 70, pad: 10 });
    expect(s.x(1)).toBe(10);
    expect(s.x(3)).toBe(110);
    expect(s.y(2)).toBe(10);
    expect(s.y(1)).toBe(60);
    expect(toPixels([{ epoch: 3, value: 1 }, { epoch: 1, value: NaN }], s)).toEqual([[110, 60]]);
  });
  it('widens flat and empty ranges', () => {
    const s = curveScale([[{ epoch: 1, value: 5 }]], { width: 100, height: 100, pad: 0 });
    expect(Number.isFinite(s.x(1)) && Number.isFinite(s.y(5))).toBe(true);
    expect(s.y(5)).toBe(50);
    expect(curveScale([], { width: 10, height: 10, pad: 0 }).y1).toBe(1);
  });
});

describe('TrialCurves', () => {
  const ev = (trial: string, epoch: number, loss: number, value: number): EngineEvent => ({ type: 'task-progress', seq: 0, t: 0, runId: 'r', key: 'k', node: 'search', worker: 'w', payload: { trial, epoch, loss, metric: 'accuracy', value, score: value } });
  it('keeps loss and metric per trial, replacing a re-run epoch, one notification per batch', () => {
    const c = new TrialCurves();
    let n = 0;
    c.subscribe(() => n++);
    c.addEvents([ev('t0', 1, 1, 0.5), ev('t0', 2, 0.8, 0.6), ev('t1', 1, 1.2, 0.4), ev('t0', 2, 0.7, 0.65)]);
    expect(n).toBe(1);
    const [a, b] = c.curves('search');
    expect(a.loss).toEqual([{ epoch: 1, value: 1 }, { epoch: 2, value: 0.7 }]);
    expect(a.metric).toBe('accuracy');
    expect(b.value).toEqual([{ epoch: 1, value: 0.4 }]);
    c.clear();
    expect(c.curves('search')).toEqual([]);
  });
});
