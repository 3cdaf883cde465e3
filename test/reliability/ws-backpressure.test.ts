/**
 * WebSocket backpressure (main/api/event-stream.ts, issue 19: five clients that stopped reading
 * took serve from 136 MB to 2.44 GB). A stand-in socket whose unsent bytes grow with every send
 * and never drain while "stalled": the stream stops sending once over HIGH_WATER, so what serve
 * holds for it is bounded no matter how many events follow; when it drains, the stream resumes
 * from the last sequence number it sent — every event arrives exactly once, in order — and a
 * run result that came while it was stalled is delivered too. Events go out in batches, one JSON
 * array per tick (issue 27 item 8), so what a stalled client holds is HIGH_WATER plus one batch.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../../main/engine/event-bus';
import { HIGH_WATER, MAX_BATCH_BYTES, MAX_BUFFERED, STALL_CLOSE_MS, TICK_MS, streamEvents } from '../../main/api/event-stream';
import type { GpuflowService } from '../../main/api/service';
import { figures } from './helpers';

class StalledSocket {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly frames: string[] = [];
  /** Every message of every frame (each frame is a JSON array), in order. */
  messages(): Array<{ seq?: number; type: string }> {
    return this.frames.flatMap((f) => JSON.parse(f) as Array<{ seq?: number; type: string }>);
  }
  private closeHandlers: Array<() => void> = [];
  send(s: string): void {
    this.frames.push(s);
    this.bufferedAmount += s.length;
  }
  on(ev: string, fn: () => void): void {
    if (ev === 'close') this.closeHandlers.push(fn);
  }
  close(): void {
    this.readyState = 3;
    for (const f of this.closeHandlers) f();
  }
  terminated = false;
  terminate(): void {
    this.terminated = true;
    this.close();
  }
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('event stream backpressure', () => {
  it('stops sending to a stalled client, then resumes from its last sequence number with nothing lost or repeated', () => {
    const N = 20_000; // ~20 MB of events
    const { results, ws } = stalledClient(N);
    for (const r of results) r({ type: 'run-result', result: { runId: 'r1' } });
    const messagesWhileStalled = ws.messages().length;
    const bytesHeld = ws.bufferedAmount;
    // The client reads everything it was sent; the stream notices on its next poll.
    ws.bufferedAmount = 0;
    vi.advanceTimersByTime(150);
    // It may stall again while catching up; keep draining until all is sent.
    for (let i = 0; i < 100 && ws.messages().length < N + 1; i++) {
      ws.bufferedAmount = 0;
      vi.advanceTimersByTime(150);
    }
    const seqs = ws.messages().filter((m) => m.type === 'log').map((m) => m.seq);
    const gotResult = ws.messages().some((m) => m.type === 'run-result');
    figures('ws-backpressure', { events: N, bytesEmitted: N * 1050, messagesWhileStalled, bytesHeldWhileStalled: bytesHeld, highWater: HIGH_WATER, framesAfter: ws.frames.length });
    expect(bytesHeld).toBeLessThan(HIGH_WATER + MAX_BATCH_BYTES + 2000);
    expect(messagesWhileStalled).toBeLessThan(N / 5);
    expect(seqs).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(gotResult).toBe(true);
    ws.close();
  });

  it(`closes a client that stays stalled past STALL_CLOSE_MS, and unsubscribes it (issue 29 item 8)`, () => {
    const { bus, ws } = stalledClient(10_000);
    // Over HIGH_WATER: lagging, but not closed while it may still drain.
    vi.advanceTimersByTime(STALL_CLOSE_MS - 1000);
    expect(ws.terminated).toBe(false);
    vi.advanceTimersByTime(2000);
    expect(ws.terminated).toBe(true);
    // Closed: later events are not even formatted for it.
    const frames = ws.frames.length;
    bus.emit({ type: 'log', level: 'info', message: 'after' });
    expect(ws.frames.length).toBe(frames);
  });

  it('closes at once a client whose unsent bytes pass MAX_BUFFERED (results are sent while lagging is off)', () => {
    const { results, ws } = stalledClient(0);
    const big = { type: 'run-result', result: { runId: 'r', blob: 'y'.repeat(MAX_BUFFERED + 1) } };
    for (const r of results) r(big);
    expect(ws.terminated).toBe(true);
  });

  it('sends the events of one tick as one JSON array in order, and a result at once after the events before it', () => {
    const { bus, results, ws } = stalledClient(0);
    for (let i = 0; i < 5; i++) bus.emit({ type: 'log', level: 'info', message: `e${i}` });
    expect(ws.frames).toHaveLength(0); // waiting for the tick
    vi.advanceTimersByTime(TICK_MS);
    expect(ws.frames).toHaveLength(1);
    expect(ws.messages().map((m) => m.seq)).toEqual([1, 2, 3, 4, 5]);
    bus.emit({ type: 'log', level: 'info', message: 'e5' });
    for (const r of results) r({ type: 'run-result', result: { runId: 'r1' } });
    // No tick needed: the result flushes the outbox, the event before it first.
    expect(ws.frames).toHaveLength(2);
    expect(ws.messages().map((m) => m.type)).toEqual(['log', 'log', 'log', 'log', 'log', 'log', 'run-result']);
    vi.advanceTimersByTime(10 * TICK_MS);
    expect(ws.frames).toHaveLength(2); // nothing waits, nothing more is sent
    ws.close();
  });

  it('a client that drains within STALL_CLOSE_MS stays open', () => {
    const { ws } = stalledClient(10_000);
    vi.advanceTimersByTime(STALL_CLOSE_MS / 2);
    ws.bufferedAmount = 0;
    vi.advanceTimersByTime(STALL_CLOSE_MS - 1000);
    expect(ws.terminated).toBe(false);
    ws.close();
  });
});

/** A stream to a stalled stand-in socket after `events` log events of ~1 KB each. */
function stalledClient(events: number) {
  const bus = new EventBus(1_000_000);
  const results = new Set<(m: unknown) => void>();
  const svc = { engine: { bus }, subscribe: (fn: never) => bus.subscribe(fn), onResult: (fn: (m: unknown) => void) => (results.add(fn), () => results.delete(fn)) } as unknown as GpuflowService;
  const ws = new StalledSocket();
  streamEvents(ws as never, svc, 0);
  const pad = 'x'.repeat(1000);
  for (let i = 0; i < events; i++) bus.emit({ type: 'log', level: 'info', message: `${i} ${pad}` });
  return { bus, results, ws };
}
