/** The group-by aggregations list editor's reading and writing of the param (hand-written values). */
import { describe, expect, it } from 'vitest';
import type { ParamValue } from '../../../common/workflow';
import { aggRowsValue, readAggRows } from '../../../renderer/logic/aggs-form';

describe('aggregation rows', () => {
  it('reads the param into rows and writes them back, leaving out rows with no column', () => {
    const v: ParamValue = [{ column: 'temp_c', agg: 'mean' }, { column: 'rain_mm', agg: 'sum', as: 'rain' }];
    const { rows, error } = readAggRows(v);
    expect(error).toBeNull();
    expect(rows).toEqual([
      { column: 'temp_c', agg: 'mean', as: '' },
      { column: 'rain_mm', agg: 'sum', as: 'rain' },
    ]);
    expect(aggRowsValue(rows)).toEqual(v);
    expect(aggRowsValue([...rows, { column: '  ', agg: 'count', as: '' }])).toEqual(v);
    expect(aggRowsValue([{ column: ' x ', agg: 'max', as: ' ' }])).toEqual([{ column: 'x', agg: 'max' }]);
  });
  it('says which entry it cannot read instead of dropping it', () => {
    expect(readAggRows([{ column: 'x', agg: 'mode' }]).error).toBe('aggs[0] is not {column, agg}: {"column":"x","agg":"mode"}');
    expect(readAggRows('mean').error).toMatch(/not a list/);
    expect(readAggRows(undefined)).toEqual({ rows: [], error: null });
  });
});
