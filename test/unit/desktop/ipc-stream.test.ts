/**
 * The Electron window's event stream (main/ipc-handlers.ts) is batched as serve's WebSocket is
 * (main/api/outbox.ts): the ring's backlog and live events go out as arrays in order, one IPC
 * message per tick; a run result goes out at once after the events before it; nothing is sent
 * after the window unsubscribes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TICK_MS } from '../../../main/api/outbox';
import type { GpuflowService } from '../../../main/api/service';
import type { IpcEventSender, IpcMainInvokeEvent, IpcMainLike } from '../../../main/electron-api';
import { EventBus } from '../../../main/engine/event-bus';
import { CHANNEL, registerIpc } from '../../../main/ipc-handlers';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

type Listener = (ev: IpcMainInvokeEvent, ...args: unknown[]) => void;

describe('the IPC event stream', () => {
  it('sends the backlog and live events as arrays in order, a result at once, nothing after unsubscribe', () => {
    const bus = new EventBus(1000);
    const results = new Set<(m: unknown) => void>();
    const svc = { engine: { bus }, subscribe: (fn: never) => bus.subscribe(fn), onResult: (fn: (m: unknown) => void) => (results.add(fn), () => results.delete(fn)) } as unknown as GpuflowService;
    const listeners = new Map<string, Listener>();
    const ipc: IpcMainLike = { handle: () => undefined, removeHandler: () => undefined, on: (ch, fn) => void listeners.set(ch, fn), removeListener: () => undefined };
    const frames: unknown[][] = [];
    const sender: IpcEventSender = {
      id: 1,
      isDestroyed: () => false,
      send: (ch, batch) => {
        if (ch === CHANNEL.message) frames.push(batch as unknown[]);
      },
      once: () => undefined,
    };
    registerIpc(ipc, svc, () => true);
    for (let i = 0; i < 3; i++) bus.emit({ type: 'log', level: 'info', message: `before ${i}` });
    listeners.get(CHANNEL.subscribe)!({ sender }, 0);
    bus.emit({ type: 'log', level: 'info', message: 'live' });
    expect(frames).toHaveLength(0); // waiting for the tick
    vi.advanceTimersByTime(TICK_MS);
    expect(frames).toHaveLength(1);
    expect(frames[0].map((m) => (m as { seq: number }).seq)).toEqual([1, 2, 3, 4]);
    bus.emit({ type: 'log', level: 'info', message: 'last' });
    for (const r of results) r({ type: 'run-result', result: { runId: 'r' } });
    expect(frames).toHaveLength(2);
    expect(frames[1].map((m) => (m as { type: string }).type)).toEqual(['log', 'run-result']);
    bus.emit({ type: 'log', level: 'info', message: 'waits' });
    listeners.get(CHANNEL.unsubscribe)!({ sender });
    bus.emit({ type: 'log', level: 'info', message: 'after' });
    vi.advanceTimersByTime(10 * TICK_MS);
    expect(frames).toHaveLength(2);
  });
});
