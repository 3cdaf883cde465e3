/**
 * What shows counts of a streaming run (progress bars, node cards, the toolbar's done/total)
 * hears the run store throttled (renderer/state/throttle.ts, read by ui/hooks.ts' useRunCounts):
 * the first change at once, then at most one per window, and a trailing one that sees the final
 * state; every count on one clock, so all are told in the same task (one React commit). Driven
 * by a hand-stepped clock, so the counts are exact.
 */
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../common/events';
import { createSession } from '../../../renderer/state/session';
import { throttle, throttleGroup, type Timers } from '../../../renderer/state/throttle';
import { fakeApi } from './fake-api';

/** A clock moved by hand; due timers fire as it passes them, in order. */
function manualClock() {
  let now = 0;
  let timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let ids = 0;
  const t: Timers & { advance(ms: number): void; pending(): number } = {
    now: () => now,
    setTimeout(fn, ms) {
      timers.push({ at: now + ms, fn, id: ++ids });
      return ids;
    },
    clearTimeout(h) {
      timers = timers.filter((x) => x.id !== h);
    },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((x) => x !== due);
        now = due.at;
        due.fn();
      }
      now = end;
    },
    pending: () => timers.length,
  };
  return t;
}

describe('throttled counts', () => {
  it('calls at once, then at most once per window, and once more after the last change', () => {
    const clock = manualClock();
    const calls: number[] = [];
    const t = throttle(() => calls.push(clock.now()), 250, clock);
    // A change every 10 ms for one second: 100 changes.
    for (let i = 0; i < 100; i++) {
      t.call();
      clock.advance(10);
    }
    clock.advance(1000);
    // At 0 (leading), then at 250, 500, 750 and a trailing one at 1000 for the changes after 750.
    expect(calls).toEqual([0, 250, 500, 750, 1000]);
    // Quiet for longer than the window: the next change is heard at once again.
    t.call();
    expect(calls.at(-1)).toBe(clock.now());
    expect(clock.pending()).toBe(0);
  });

  it('a session streaming 400 progress events notifies a counts listener 9 times, the last with the final counts', async () => {
    const clock = manualClock();
    const api = fakeApi();
    api.queueEntries = [{ id: 'q1', label: 'run', node: null, state: 'running', runId: 'r1', storeId: 1, queuedAt: 1 }];
    const s = createSession(api, (fn) => fn());
    const init = s.init();
    api.push({ type: 'run', seq: 1, t: 1, runId: 'r1', state: 'started', tasks: 400 });
    await init;
    let direct = 0;
    s.run.subscribe(() => direct++);
    const seen: Array<[number, number]> = [];
    const unsub = throttleGroup(250, clock).wrap((fn) => s.run.subscribe(fn))(() => seen.push([s.run.getState().done, s.run.getState().total]));
    // 400 progress events, one each 5 ms (2 s of a run).
    for (let i = 1; i <= 400; i++) {
      const ev: EngineEvent = { type: 'progress', seq: 1 + i, t: 1 + i, runId: 'r1', done: i, total: 400, byNode: { x: [i, 400] } };
      api.push(ev);
      clock.advance(5);
    }
    clock.advance(250);
    unsub();
    // Unthrottled, every event reached the listener (what re-rendered every card per event).
    expect(direct).toBe(400);
    // Throttled: at 0 ms, then each 250 ms up to 2 000 ms (2 000 / 250 = 8 more): 9 in all.
    expect(seen.length).toBe(9);
    expect(seen[0]).toEqual([1, 400]);
    expect(seen.at(-1)).toEqual([400, 400]);
    expect(clock.pending()).toBe(0);
  });

  it('a group tells every listener whose source changed at the same tick, and no other', () => {
    const clock = manualClock();
    const group = throttleGroup(250, clock);
    const sources = [new Set<() => void>(), new Set<() => void>(), new Set<() => void>()];
    const change = (i: number) => sources[i].forEach((fn) => fn());
    const heard: string[] = [];
    sources.forEach((src, i) =>
      group.wrap((fn) => {
        src.add(fn);
        return () => src.delete(fn);
      })(() => heard.push(`${clock.now()}:${i}`)),
    );
    change(0); // the first change: heard at once
    clock.advance(40);
    change(1);
    clock.advance(40);
    change(0);
    change(1);
    clock.advance(300);
    // Sources 0 and 1 changed in the window: both told at its end (250), in one call; 2 never.
    expect(heard).toEqual(['0:0', '250:1', '250:0']);
  });
});
