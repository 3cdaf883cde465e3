import { describe, expect, it } from 'vitest';
import { EventBus } from '../../../main/engine/event-bus';

const log = (bus: EventBus, n: number) => {
  for (let i = 0; i < n; i++) bus.emit({ type: 'log', level: 'info', message: `m${i}` });
};

describe('event bus', () => {
  it('numbers events and resumes after a sequence number', () => {
    const bus = new EventBus(100);
    const seen: number[] = [];
    bus.subscribe((e) => seen.push(e.seq));
    log(bus, 7);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(bus.since(4)).toEqual({ events: expect.any(Array), complete: true });
    expect(bus.since(4).events.map((e) => e.seq)).toEqual([5, 6, 7]);
    expect(bus.since(7).events).toEqual([]);
  });

  it('keeps the last `capacity` events and says when older ones were dropped', () => {
    const bus = new EventBus(5);
    log(bus, 12);
    const all = bus.since(0);
    expect(all.events.map((e) => e.seq)).toEqual([8, 9, 10, 11, 12]);
    expect(all.complete).toBe(false);
    expect(bus.since(7)).toMatchObject({ complete: true });
    expect(bus.since(9).events.map((e) => (e.type === 'log' ? e.message : ''))).toEqual(['m9', 'm10', 'm11']);
  });
});
