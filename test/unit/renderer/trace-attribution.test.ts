/** bench/renderer/trace-attribution.ts: a long task's time split by the self time of what is nested in it, hand-computed. */
import { describe, expect, it } from 'vitest';
import { attributeLongTasks, bucketOf, type TraceEvent } from '../../../bench/renderer/trace-attribution';

const x = (name: string, tsMs: number, durMs: number, tid = 1): TraceEvent => ({ name, ph: 'X', ts: tsMs * 1000, dur: durMs * 1000, pid: 7, tid });

describe('long tasks attributed from a Chromium trace', () => {
  it('splits a 100 ms task into script, GC inside the script, layout, commit and its own time', () => {
    const events: TraceEvent[] = [
      { name: 'thread_name', ph: 'M', ts: 0, pid: 7, tid: 1, args: { name: 'CrRendererMain' } },
      { name: 'thread_name', ph: 'M', ts: 0, pid: 7, tid: 2, args: { name: 'Compositor' } },
      x('RunTask', 0, 10), // short: not a long task
      { ...x('RunTask', 20, 100), tdur: 40_000 },
      x('FunctionCall', 20, 60), // 60 ms, of which 15 ms GC: 45 ms script
      x('MinorGC', 30, 15),
      x('Layout', 80, 10),
      x('Commit', 95, 20),
      x('Paint', 0, 500, 2), // another thread: ignored
    ];
    expect(attributeLongTasks(events)).toEqual([{ at: 20, ms: 100, cpuMs: 40, by: { script: 45, gc: 15, style: 0, layout: 10, paint: 20, other: 10 }, top: [['FunctionCall', 45], ['Commit', 20], ['MinorGC', 15], ['Layout', 10]] }]);
  });

  it('names the buckets', () => {
    expect(['V8.GC_SCAVENGER', 'UpdateLayoutTree', 'FireAnimationFrame', 'PrePaint', 'Blink.Paint.UpdateTime', 'Receive mojo message'].map(bucketOf)).toEqual(['gc', 'style', 'script', 'paint', 'paint', 'other']);
  });
});
