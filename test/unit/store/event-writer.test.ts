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

  it('keeps at most maxFailedBatches failed batches, dropping the oldest and counting per run', () => {
    const sink = new MemorySink();
    const errors: unknown[] = [];
    const w = new EventWriter(sink, { flushMs: 100, maxFailedBatches: 2, onError: (e) => errors.push(e) });
    sink.failNext = 3;
    w.push(1, ev(1));
    vi.advanceTimersByTime(100); // batch [1] fails
    w.push(2, ev(2));
    vi.advanceTimersByTime(100); // [1], [2] fail
    w.push(1, ev(3));
    vi.advanceTimersByTime(100); // [1], [2], [3] fail: the oldest, [1], is dropped
    expect(errors).toHaveLength(3);
    expect(w.dropped).toBe(1);
    expect(w.pending).toBe(2);
    vi.advanceTimersByTime(100);
    expect(sink.all(1)).toEqual([3]);
    expect(sink.all(2)).toEqual([2]);
    expect(w.settleRun(1)).toEqual({ dropped: 1, error: expect.objectContaining({ message: 'disk full' }) });
    expect(w.settleRun(1)).toEqual({ dropped: 0, error: undefined });
    expect(w.settleRun(2)).toEqual({ dropped: 0, error: undefined });
  });

  it('settleRun writes a run\'s events, or drops and counts them when the write still fails', () => {
    const sink = new MemorySink();
    const w = new EventWriter(sink, { flushMs: 100, onError: () => undefined });
    w.push(1, ev(1));
    w.push(2, ev(2));
    expect(w.settleRun(1)).toEqual({ dropped: 0, error: undefined });
    expect(sink.all(1)).toEqual([1]);
    w.push(1, ev(3));
    w.push(2, ev(4));
    sink.failNext = 1;
    const loss = w.settleRun(1);
    expect(loss.dropped).toBe(1);
    expect((loss.error as Error).message).toBe('disk full');
    // The other run's events stay pending and are written by the next flush.
    expect(w.pending).toBe(1);
    vi.advanceTimersByTime(100);
    expect(sink.all(2)).toEqual([2, 4]);
    expect(sink.all(1)).toEqual([1]);
  });
});
