/** Writes that find another process's lock wait and land later, in order (main/store/deferred-writes.ts). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeferredWrites } from '../../../main/store/deferred-writes';
import { StoreError } from '../../../main/store/errors';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('DeferredWrites', () => {
  it('writes at once when it can; while locked, keeps writes in order and lands them when the lock goes', () => {
    let locked = false;
    const rows: string[] = [];
    const errors: string[] = [];
    const w = new DeferredWrites((what) => errors.push(what), 100);
    const put = (x: string) => () => {
      if (locked) throw new StoreError('busy', '/db', 'locked');
      rows.push(x);
    };
    expect(w.write('a', put('a'))).toBe('written');
    locked = true;
    expect(w.write('b', put('b'))).toBe('deferred');
    locked = false;
    // c must not overtake b, even though the lock is free now.
    expect(w.write('c', put('c'))).toBe('deferred');
    expect(rows).toEqual(['a']);
    vi.advanceTimersByTime(100);
    expect(rows).toEqual(['a', 'b', 'c']);
    expect(w.pending).toBe(0);
    expect(errors).toEqual([]);
  });

  it('retries while the lock stays held; a non-lock error is thrown at once, or reported when deferred', () => {
    let locked = true;
    const rows: string[] = [];
    const errors: string[] = [];
    const w = new DeferredWrites((what) => errors.push(what), 100);
    w.write('x', () => {
      if (locked) throw new StoreError('busy', '/db', 'locked');
      rows.push('x');
    });
    w.write('bad', () => {
      throw new StoreError('disk-full', '/db', 'full');
    });
    vi.advanceTimersByTime(1000);
    expect(rows).toEqual([]);
    expect(w.pending).toBe(2);
    locked = false;
    vi.advanceTimersByTime(100);
    expect(rows).toEqual(['x']);
    expect(errors).toEqual(['bad']);
    expect(() =>
      w.write('now', () => {
        throw new StoreError('disk-full', '/db', 'full');
      }),
    ).toThrow('full');
  });

  it('drain tries what waits once, reporting what still cannot be written', () => {
    const errors: string[] = [];
    const w = new DeferredWrites((what) => errors.push(what), 100);
    w.write('stuck', () => {
      throw new StoreError('busy', '/db', 'locked');
    });
    w.drain();
    expect(errors).toEqual(['stuck']);
    expect(w.pending).toBe(0);
  });
});
