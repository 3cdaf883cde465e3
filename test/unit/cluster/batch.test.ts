/**
 * The IPC batcher (common/batch.ts): what one event-loop turn sends goes as one write, in order;
 * with a linger, a batch started while `when()` holds waits `ms` for more, and is written this
 * turn once `when()` stops holding (the last kernel's done is never held). Fake timers drive the
 * turns and the linger, so nothing here depends on the machine's speed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { batcher, unbatch, type Batch } from '../../../common/batch';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function collect() {
  const writes: Array<number | Batch> = [];
  const flat = () => writes.flatMap((w) => {
    const out: unknown[] = [];
    unbatch(w, (m) => out.push(m));
    return out;
  });
  return { writes, flat, write: (m: number | Batch) => writes.push(m) };
}

describe('batcher', () => {
  it('writes what one turn sends as one batch, in order, and a lone message as itself', () => {
    const c = collect();
    const b = batcher<number>(c.write);
    b.send(1);
    b.send(2);
    b.send(3);
    expect(c.writes).toEqual([]);
    vi.advanceTimersToNextTimer();
    expect(c.writes).toEqual([{ type: 'batch', messages: [1, 2, 3] }]);
    b.send(4);
    vi.advanceTimersToNextTimer();
    expect(c.writes.at(-1)).toBe(4);
    expect(c.flat()).toEqual([1, 2, 3, 4]);
  });

  it('holds a batch for the linger while when() is true, gathering later turns into it', () => {
    const c = collect();
    let busy = true;
    const b = batcher<number>(c.write, { ms: 1, when: () => busy });
    b.send(1);
    vi.advanceTimersByTime(0.5);
    b.send(2);
    expect(c.writes).toEqual([]);
    vi.advanceTimersByTime(0.5);
    expect(c.writes).toEqual([{ type: 'batch', messages: [1, 2] }]);
    busy = false;
    b.send(3);
    vi.advanceTimersToNextTimer();
    expect(c.flat()).toEqual([1, 2, 3]);
    expect(c.writes).toHaveLength(2);
  });

  it('writes a held batch at the end of the turn once when() stops holding', () => {
    const c = collect();
    let busy = true;
    const b = batcher<number>(c.write, { ms: 1000, when: () => busy });
    b.send(1);
    busy = false;
    b.send(2);
    // The immediate fires long before the 1000 ms linger would.
    vi.advanceTimersByTime(1);
    expect(c.writes).toEqual([{ type: 'batch', messages: [1, 2] }]);
    vi.advanceTimersByTime(1000);
    expect(c.writes).toHaveLength(1);
  });

  it('flush() writes at once, and a later timer finds nothing to write', () => {
    const c = collect();
    const b = batcher<number>(c.write, { ms: 5, when: () => true });
    b.send(7);
    b.flush();
    expect(c.writes).toEqual([7]);
    vi.advanceTimersByTime(10);
    expect(c.writes).toEqual([7]);
  });
});
