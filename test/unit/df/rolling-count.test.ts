/**
 * rolling count over windows holding NaN and nulls, against pandas: count needs min_periods rows
 * in its window (present or not), where the other aggregates need present values. Expected rows
 * are pandas 2's (min_periods defaults to the window; pandas 1.5 warns and defaults count to 0),
 * hand-checked with /usr/bin/python3's pandas 1.5 given min_periods explicitly.
 */
import { describe, expect, it } from 'vitest';
import { floatVector } from '../../../worker/kernels/df/build';
import { tableOf } from '../../../worker/kernels/df/gather';
import { rolling } from '../../../worker/kernels/df/window';
import { column } from './helpers';

function frame(xs: number[], nulls: number[] = []): ReturnType<typeof tableOf> {
  const valid = Uint8Array.from(xs, (_, i) => (nulls.includes(i) ? 0 : 1));
  return tableOf([{ name: 'x', vector: floatVector(Float64Array.from(xs), valid) }], xs.length);
}

describe('rolling count with missing values (pandas)', () => {
  it('[1, NaN, 3, 4].rolling(3).count() is [NaN, NaN, 2, 2]', () => {
    const t = rolling([], frame([1, NaN, 3, 4]), { window: 3, cols: [{ column: 'x', agg: 'count', as: 'c' }] });
    expect(column(t, 'c')).toEqual([null, null, 2, 2]);
  });

  it('min_periods=2 over leading NaNs and a null counts 0 once two rows are in the window', () => {
    // pandas: pd.Series([nan, nan, nan, 4, 5]).rolling(3, min_periods=2).count() -> [nan, 0, 0, 1, 2]
    const t = rolling([], frame([NaN, 0, NaN, 4, 5], [1]), { window: 3, minPeriods: 2, cols: [{ column: 'x', agg: 'count', as: 'c' }] });
    expect(column(t, 'c')).toEqual([null, 0, 0, 1, 2]);
  });

  it('counts across a partition boundary from the rows before it', () => {
    const t = rolling([frame([1, NaN])], frame([NaN, 4]), { window: 3, cols: [{ column: 'x', agg: 'count', as: 'c' }] });
    // Windows [1, NaN, NaN] and [NaN, NaN, 4].
    expect(column(t, 'c')).toEqual([1, 1]);
  });

  it('sum still needs min_periods present values', () => {
    const t = rolling([], frame([1, NaN, 3, 4]), { window: 3, minPeriods: 2, cols: [{ column: 'x', agg: 'sum', as: 's' }] });
    expect(column(t, 's')).toEqual([null, null, 4, 7]);
  });
});
