/**
 * One WebSocket client's event stream: engine events after `since` (the ring's backlog, then live),
 * plus run and benchmark results. A client that stops reading must not make serve hold its
 * events in memory (issue 19: five stalled clients took serve from 136 MB to 2.44 GB), so when
 * the socket's unsent bytes pass HIGH the stream stops sending and skips events; once they drain
 * below LOW it catches up from the bus's ring after the last sequence number it sent, or — when
 * the ring has moved past it — says so, exactly as a reconnect with ?since= would. Results carry
 * no sequence number and are rare, so they wait in a short queue instead.
 *
 * A client that stays stalled is closed (issue 29 item 8: each one still held about 2.8 MB of
 * kernel send queue, forever): after STALL_CLOSE_MS without draining below LOW, or at once when
 * its unsent bytes pass MAX_BUFFERED (results and the frame in flight may overshoot HIGH). It is
 * terminated, not closed politely: a peer that does not read would not read a close frame either.
 * A browser reconnects with ?since= and gets what it missed.
 *
 * Each WebSocket message is a JSON array of messages in order (issue 27 item 8): a run sends
 * thousands of events a second, and one message per event cost the page more to receive and parse
 * than to draw (71 512 messages for a 12 603-task run). Events and results wait in an outbox sent
 * once per TICK_MS, or at once when it holds MAX_BATCH_BYTES, so a replayed backlog still meets the
 * pressure check between batches and what a stalled client costs stays bounded by HIGH_WATER plus
 * one batch.
 */
import type { WebSocket } from 'ws';
import type { EngineEvent } from '../../common/events';
import { Outbox } from './outbox';
import type { GpuflowService } from './service';

export const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 256 * 1024;
const POLL_MS = 100;
const MAX_PENDING_RESULTS = 100;
export const STALL_CLOSE_MS = 30_000;
export const MAX_BUFFERED = 4 * HIGH_WATER;
export const MAX_BATCH_BYTES = 256 * 1024;
export { TICK_MS } from './outbox';

export function streamEvents(ws: WebSocket, svc: GpuflowService, since: number): void {
  let lastSent = since;
  let lagging = false;
  let laggingSince = 0;
  let poll: ReturnType<typeof setInterval> | null = null;
  const pendingResults: unknown[] = [];
  /** Messages as JSON, waiting for the tick. */
  const outbox = new Outbox<string>(
    (batch) => {
      if (ws.readyState !== ws.OPEN) return;
      ws.send(`[${batch.join(',')}]`);
      checkPressure();
    },
    MAX_BATCH_BYTES,
    (text) => text.length,
  );
  const flush = () => outbox.flush();
  const raw = (m: unknown) => {
    if (ws.readyState === ws.OPEN) outbox.push(JSON.stringify(m));
  };
  const checkPressure = () => {
    if (ws.bufferedAmount > MAX_BUFFERED) return void ws.terminate();
    if (lagging || ws.bufferedAmount <= HIGH_WATER) return;
    lagging = true;
    laggingSince = Date.now();
    poll = setInterval(catchUp, POLL_MS);
  };
  const sendEvent = (e: EngineEvent) => {
    if (lagging || e.seq <= lastSent) return;
    raw(e); // pressure is checked as each batch goes out
    lastSent = e.seq;
  };
  const replay = (after: number) => {
    const backlog = svc.engine.bus.since(after);
    if (!backlog.complete) raw({ type: 'log', seq: 0, t: Date.now(), level: 'warn', message: `events after ${after} were dropped from the buffer; history is in the store` });
    for (const e of backlog.events) {
      if (lagging) return;
      sendEvent(e);
    }
  };
  function catchUp(): void {
    if (ws.readyState === ws.OPEN && ws.bufferedAmount > LOW_WATER && Date.now() - laggingSince > STALL_CLOSE_MS) return void ws.terminate();
    if (ws.readyState !== ws.OPEN || ws.bufferedAmount > LOW_WATER) return;
    if (poll) clearInterval(poll);
    poll = null;
    lagging = false;
    for (const m of pendingResults.splice(0)) raw(m);
    replay(lastSent);
    flush();
  }

  // Subscribe first, then replay the ring: an event emitted in between is sent once, in order
  // (sendEvent skips what is at or below lastSent).
  let replaying = true;
  const queued: EngineEvent[] = [];
  const unsubEvents = svc.subscribe((e) => {
    if (replaying) queued.push(e);
    else sendEvent(e);
  });
  replay(since);
  replaying = false;
  for (const e of queued) sendEvent(e);
  const unsubResults = svc.onResult((m) => {
    // A result ends a run or a benchmark: it goes out at once, after the events before it.
    if (!lagging) {
      raw(m);
      flush();
    } else if (pendingResults.length < MAX_PENDING_RESULTS) pendingResults.push(m);
  });
  ws.on('close', () => {
    if (poll) clearInterval(poll);
    outbox.discard();
    unsubEvents();
    unsubResults();
  });
}
