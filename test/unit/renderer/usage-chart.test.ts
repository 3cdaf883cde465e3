import { describe, expect, it } from 'vitest';
import type { WorkerSample } from '../../../common/api';
import { usageChart } from '../../../renderer/logic/usage-chart';

const s = (t: number, util: number, memBytes: number): WorkerSample => ({ t, util, busy: util, memBytes, rss: 0 });
const box = { width: 100, height: 50, windowMs: 10_000 };

describe('usageChart', () => {
  it('maps time across the width and utilisation 0..1 up the height', () => {
    const c = usageChart([s(1000, 0, 0), s(2000, 0.5, 0), s(3000, 1, 0)], 1000, box);
    // Three samples over 2 s: x at 0, 50, 100; util 0 at the bottom (50), 1 at the top (0).
    expect(c.util).toBe('0,50 50,25 100,0');
    expect(c.points).toBe(3);
  });

  it('scales memory to 5 % above the larger of limit and peak, and draws the limit inside', () => {
    const c = usageChart([s(0, 0, 200), s(1000, 0, 400)], 1000, box);
    expect(c.memTop).toBe(1050);
    // 400 / 1050 of 50 px up from the bottom: 50 - 19.05 = 30.95 -> 31.0 after rounding to 0.1.
    expect(c.mem).toBe('0,40.5 100,31');
    expect(c.limitY).toBeCloseTo(50 - (1000 / 1050) * 50, 9);
    // A reading above the limit raises the top instead of leaving the chart.
    expect(usageChart([s(0, 0, 3000), s(1, 0, 0)], 1000, box).memTop).toBe(3150);
  });

  it('keeps only the window ending at the newest sample; fewer than two samples draw no line', () => {
    const c = usageChart([s(0, 1, 0), s(20_000, 0, 0), s(25_000, 1, 0), s(30_000, 0, 0)], 10, box);
    expect(c.points).toBe(3);
    expect(c.util).toBe('0,50 50,0 100,50');
    expect(usageChart([s(5, 1, 1)], 10, box).util).toBe('');
    expect(usageChart([], 10, box)).toMatchObject({ util: '', mem: '', points: 0 });
  });

  it('clamps utilisation outside 0..1 and non-finite readings', () => {
    const c = usageChart([s(0, 1.7, 0), s(10, -1, 0), s(20, Number.NaN, 0)], 10, box);
    expect(c.util).toBe('0,0 50,50 100,50');
  });
});
