import { describe, expect, it } from 'vitest';
import { PhiloxStream } from '../../../common/philox';
import { normalQuantile, timeseries, timeseriesPartition, TIMESERIES_NAMES } from '../../../worker/kernels/df/timeseries';
import { concatTables } from '../../../worker/kernels/df/gather';
import { groupby } from '../../../worker/kernels/df/groupby';
import { rows } from './helpers';

describe('synthetic timeseries', () => {
  it('derives every value from the Philox stream addressed by the global row', () => {
    const t = timeseries({ seed: 7, rowStart: 1000, rowCount: 5 });
    const s = new PhiloxStream(7, 'uniform', 0, 1, false);
    rows(t).forEach((r, i) => {
      const g = 1000 + i;
      expect(r.name).toBe(TIMESERIES_NAMES[Math.floor(s.at(4 * g) * 26)]);
      expect(r.x).toBe(-1 + 2 * s.at(4 * g + 1));
      expect(r.id).toBe(Math.round(1000 + Math.sqrt(1000) * normalQuantile(s.at(4 * g + 2))));
      expect(r.y).toBe(-1 + 2 * s.at(4 * g + 3));
      expect(r.timestamp).toBe(Date.UTC(2000, 0, 1) + g * 1000);
    });
  });

  it('gives the same rows for any partitioning of one seed', () => {
    const whole = rows(timeseries({ seed: 3, rowStart: 0, rowCount: 600 }));
    const a = concatTables([0, 1, 2].map((p) => timeseriesPartition(3, p, 200)));
    const b = concatTables([timeseries({ seed: 3, rowStart: 0, rowCount: 123 }), timeseries({ seed: 3, rowStart: 123, rowCount: 477 })]);
    expect(rows(a)).toEqual(whole);
    expect(rows(b)).toEqual(whole);
    expect(rows(timeseries({ seed: 4, rowStart: 0, rowCount: 3 }))).not.toEqual(whole.slice(0, 3));
    // A projection gives the same values for the columns it keeps.
    const proj = rows(timeseries({ seed: 3, rowStart: 100, rowCount: 50, columns: ['name', 'x'] }));
    expect(proj).toEqual(whole.slice(100, 150).map((r) => ({ name: r.name, x: r.x })));
    expect(() => timeseries({ seed: 3, rowStart: 0, rowCount: 1, columns: ['z' as never] })).toThrow("unknown column 'z'");
  });

  it('has the documented distributions', () => {
    const t = timeseries({ seed: 11, rowStart: 0, rowCount: 20000 });
    const g = rows(groupby(t, { by: ['name'], aggs: [{ column: 'x', agg: 'mean' }, { agg: 'size' }] }));
    expect(g.length).toBe(26);
    const stats = rows(groupby(t.slice(0, 20000), { by: ['name'], aggs: [{ column: 'id', agg: 'mean' }, { column: 'id', agg: 'std' }, { column: 'y', agg: 'min' }, { column: 'y', agg: 'max' }] }));
    for (const r of stats) {
      expect(Math.abs((r.id_mean as number) - 1000)).toBeLessThan(5);
      expect(Math.abs((r.id_std as number) - Math.sqrt(1000))).toBeLessThan(3);
      expect(r.y_min as number).toBeGreaterThan(-1);
      expect(r.y_max as number).toBeLessThanOrEqual(1);
    }
    for (const r of g) expect(Math.abs(r.x_mean as number)).toBeLessThan(0.1);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
  });
});

describe('timeseries Philox', () => {
  it('equals PhiloxStream at high counters (above 2^32 blocks) too', () => {
    const start = 2 ** 31 + 12345; // rows whose blocks 2r, 2r+1 pass 2^32
    const t = timeseries({ seed: 2 ** 40 + 3, rowStart: start, rowCount: 3 });
    const s = new PhiloxStream(2 ** 40 + 3, 'uniform', 0, 1, false);
    rows(t).forEach((r, i) => {
      expect(r.x).toBe(-1 + 2 * s.at(4 * (start + i) + 1));
      expect(r.y).toBe(-1 + 2 * s.at(4 * (start + i) + 3));
    });
  });
});
