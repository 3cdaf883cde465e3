import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventWriter, type EventSink } from '../../../main/store/event-writer';
import type { EventInput } from '../../../common/store-types';

class MemorySink implements EventSink {
  calls: [number, EventInput[]][][] = [];
  failNext = 0;
  appendEvents(batches: Iterable<[number, readonly EventInput[]]>): void {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('disk full');
    }
    this.calls.push([...batches].map(([id, evs]) => [id, [...evs]]));
  }
  all(runId: number): number[] {
    return this.calls.flatMap((c) => c.filter(([id]) => id === runId).flatMap(([, evs]) => evs.map((e) => e.t)));
  }
}

const ev = (t: number): EventInput => ({ t, type: 'task-done' });

describe('EventWriter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('writes nothing on push, one batch per interval for all runs', () => {
    const sink = new MemorySink();
    const w = new EventWriter(sink, { flushMs: 250 });
    w.push(1, ev(1));
    w.push(2, ev(2));
    w.push(1, ev(3));
    expect(sink.calls).toHaveLength(0);
    vi.advanceTimersByTime(249);
    expect(sink.calls).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(sink.calls).toHaveLength(1);
    expect(sink.all(1)).toEqual([1, 3]);
    expect(sink.all(2)).toEqual([2]);
    expect(w.pending).toBe(0);
  });

  it('flushes the rest on close and refuses pushes after', () => {
    const sink = new MemorySink();
    const w = new EventWriter(sink);
    w.push(1, ev(1));
    w.close();
    expect(sink.all(1)).toEqual([1]);
    expect(() => w.push(1, ev(2))).toThrow(/after close/);
    w.close();
  });

  it('keeps a failed batch, in order, for the next flush', () => {
    const sink = new MemorySink();
    const errors: unknown[] = [];
    const w = new EventWriter(sink, { flushMs: 100, onError: (e) => errors.push(e) });
    sink.failNext = 1;
    w.push(1, ev(1));
    w.push(1, ev(2));
    vi.advanceTimersByTime(100);
    expect(errors).toHaveLength(1);
    expect(w.pending).toBe(2);
    w.push(1, ev(3));
    vi.advanceTimersByTime(100);
    expect(sink.all(1)).toEqual([1, 2, 3]);
  });

  it('drops the oldest events past maxBuffered and counts them', () => {
    const sink = new MemorySink();
    const w = new EventWriter(sink, { maxBuffered: 3 });
    for (let t = 1; t <= 5; t++) w.push(1, ev(t));
    expect(w.dropped).toBe(2);
    w.flush();
    expect(sink.all(1)).toEqual([3, 4, 5]);
  });
});
