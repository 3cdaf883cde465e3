/**
 * Results in words a person reads: Arrow types as pandas users name them, group-by aggregations on
 * a node card, two runs' results paired and decoded (numbers with their difference, arrays with
 * max abs/rel error, tables row-aligned with changed cells), workflow differences in words.
 */
import { Dictionary, Int32, Int64, Table, TimestampMillisecond, Uint8, Utf8, tableToIPC, vectorFromArray, DateDay, Float32 } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { decodeTable } from '../../../renderer/logic/arrow-table';
import { miniSize } from '../../../renderer/logic/layout';
import { createEditorStore } from '../../../renderer/state/editor-store';
import { keyParams, paramText } from '../../../renderer/logic/format';
import { describeDifference, maxErrors, pairResults, readStoredResults } from '../../../renderer/logic/result-compare';

const b64 = (t: Table) => Buffer.from(tableToIPC(t, 'stream')).toString('base64');

describe('table column types in words', () => {
  it('names Arrow types as pandas / NumPy users do', () => {
    const d = new Date(Date.UTC(2026, 0, 2));
    const t = new Table({
      station: vectorFromArray(['a', 'b', 'a'], new Dictionary(new Utf8(), new Int32())),
      x: vectorFromArray([1.5, 2, 3]),
      f: vectorFromArray([1, 2, 3], new Float32()),
      n: vectorFromArray([1, 2, 3], new Int32()),
      big: vectorFromArray([1n, 2n, 3n], new Int64()),
      u: vectorFromArray([1, 2, 3], new Uint8()),
      ok: vectorFromArray([true, false, true]),
      at: vectorFromArray([d, d, d], new TimestampMillisecond()),
      day: vectorFromArray([d, d, d], new DateDay()),
    });
    const cols = decodeTable(b64(t)).columns;
    expect(cols.map((c) => c.type)).toEqual(['string (dictionary)', 'float64', 'float32', 'int32', 'int64', 'uint8', 'bool', 'datetime (ms)', 'date']);
    expect(cols[0].arrowType).toBe('Dictionary<Int32, Utf8>');
  });
});

describe('node card params', () => {
  it('shows group-by aggregations as agg(column), never [object Object]', () => {
    const aggs = [{ column: 'temp_c', agg: 'mean' }, { column: 'rain_mm', agg: 'sum', as: 'rain' }];
    expect(paramText(aggs)).toBe('mean(temp_c), sum(rain_mm) as rain');
    expect(paramText([1000, 500])).toBe('1000 × 500');
    expect(paramText(['station'])).toBe('station');
    expect(paramText({ a: 1, b: [2, 3] })).toBe('a=1 b=2 × 3');
    const card = keyParams({ by: ['station'], aggs });
    expect(card).toEqual([
      ['by', 'station'],
      ['aggs', 'mean(temp_c), sum(rai…'],
    ]);
    expect(card.flat().join(' ')).not.toContain('[object');
  });
});

describe('compare: results side by side', () => {
  it('pairs scalars with their difference and arrays with max abs / rel error over the stored summary', () => {
    const a = readStoredResults({
      total: { kind: 'scalar', dtype: 'float64', value: 10 },
      x: { kind: 'array', dtype: 'float64', shape: [4, 4], summary: { min: 1, max: 4, mean: 2.5, histogram: { bins: 1, counts: [16] }, corner: { shape: [2, 2], data: [1, 2, 3, 4] } } },
      bad: { kind: 'array', shape: 'nope' },
    });
    const b = readStoredResults({
      total: { kind: 'scalar', dtype: 'float64', value: 10.5 },
      x: { kind: 'array', dtype: 'float64', shape: [4, 4], summary: { min: 1, max: 4.5, mean: 2.5, histogram: { bins: 1, counts: [16] }, corner: { shape: [2, 2], data: [1, 2, 3, 4.5] } } },
    });
    expect(a.unreadable).toEqual(['bad']);
    const pairs = pairResults(a.results, b.results);
    // An entry that does not read is reported (above), not paired.
    expect(pairs.map((p) => [p.node, p.kind])).toEqual([
      ['total', 'scalar'],
      ['x', 'array'],
    ]);
    expect(pairs[0]).toMatchObject({ kind: 'scalar', a: 10, b: 10.5, diff: 0.5 });
    // max differs by 0.5 (4 vs 4.5): relative 0.5 / 4.5.
    expect(pairs[1]).toMatchObject({ kind: 'array', sameShape: true, abs: 0.5 });
    if (pairs[1].kind === 'array') expect(pairs[1].rel).toBeCloseTo(0.5 / 4.5);
    // A node on one side only says so.
    expect(pairResults({ s: a.results.total }, {})[0]).toMatchObject({ kind: 'other', a: 'float64 10', b: 'no result' });
    expect(maxErrors([0, 1], [0, 1])).toEqual({ abs: 0, rel: 0 });
  });

  it('decodes two tables and aligns them row by row, marking the changed cells', () => {
    const ta = new Table({ k: vectorFromArray(['a', 'b', 'c']), v: vectorFromArray([1, 2, 3]) });
    const tb = new Table({ k: vectorFromArray(['a', 'b', 'c']), v: vectorFromArray([1, 20, 3]) });
    const col = [{ name: 'k', type: 'Utf8' }, { name: 'v', type: 'Float64' }];
    const [p] = pairResults(readStoredResults({ t: { kind: 'table', rows: 3, columns: col, ipc: b64(ta), truncated: false } }).results, readStoredResults({ t: { kind: 'table', rows: 3, columns: col, ipc: b64(tb), truncated: false } }).results);
    expect(p.kind).toBe('table');
    if (p.kind !== 'table') return;
    expect(p.diff?.columns).toEqual(['k', 'v']);
    expect(p.diff?.changedCells).toBe(1);
    expect(p.diff?.changed.map((s) => [...s])).toEqual([[], [1], []]);
    expect(p.a.table?.cell(1, 1)).toBe('2');
    expect(p.b.table?.cell(1, 1)).toBe('20');
  });
});

describe('compare: workflow differences in words', () => {
  it('names changed nodes and params', () => {
    expect(describeDifference({ path: 'nodes[id=gen].params.n', a: 10, b: 20 })).toBe('node gen: param n changed from 10 to 20');
    expect(describeDifference({ path: 'nodes[id=gen].params.shape[0]', a: 10, b: 20 })).toBe('node gen: param shape changed from 10 to 20');
    expect(describeDifference({ path: 'nodes[id=s]', a: undefined, b: { id: 's', op: 'reduce', params: {} } })).toBe('node s added (reduce)');
    expect(describeDifference({ path: 'nodes[id=s]', a: { id: 's', op: 'reduce' }, b: undefined })).toBe('node s removed (reduce)');
    expect(describeDifference({ path: 'nodes[id=g].params.aggs', a: undefined, b: [{ column: 'x', agg: 'sum' }] })).toBe('node g: param aggs set to sum(x)');
    expect(describeDifference({ path: 'params.N', a: 100, b: 200 })).toBe('workflow parameter $N: 100 → 200');
  });
});

describe('the canvas view', () => {
  it('asks for a fit after auto-layout, as after opening a document', () => {
    const ed = createEditorStore();
    ed.getState().load({ name: 'g', params: {}, nodes: [{ id: 'a', op: 'x', params: {}, position: { x: 900, y: 900 } }], edges: [] }, null);
    const before = ed.getState().fitSeq;
    ed.getState().autoLayout();
    expect(ed.getState().fitSeq).toBe(before + 1);
  });
  it('sizes the minimap to the canvas within bounds', () => {
    expect(miniSize(600)).toEqual({ width: 100, height: 60 });
    expect(miniSize(300)).toEqual({ width: 96, height: 58 });
    expect(miniSize(1800)).toEqual({ width: 200, height: 120 });
  });
});
