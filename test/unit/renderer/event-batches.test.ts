/**
 * The page's event socket (renderer/api/http-client.ts) takes serve's batches: one WebSocket frame
 * is a JSON array of messages (main/api/event-stream.ts), handed on one by one in order; a frame
 * of one message (an older server) still works, and after a reconnect what was already seen is
 * skipped by sequence number, inside a batch as well.
 */
import { describe, expect, it } from 'vitest';
import type { StreamMessage } from '../../../common/api';
import { createHttpClient } from '../../../renderer/api/http-client';

class FakeSocket {
  static all: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((ev: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  frame(data: unknown) {
    this.onmessage?.({ data: JSON.stringify(data) });
  }
  close() {}
}

const log = (seq: number) => ({ type: 'log', seq, t: 0, level: 'info', message: `m${seq}` });

describe('event socket batches', () => {
  it('hands on each message of a batch in order, single messages too, and skips what a reconnect repeats', () => {
    FakeSocket.all = [];
    const client = createHttpClient({ base: 'http://127.0.0.1:1', token: 't', fetchImpl: (() => Promise.reject(new Error('no fetch'))) as never, WebSocketImpl: FakeSocket as never });
    const got: StreamMessage[] = [];
    const stop = client.subscribe((m) => got.push(m));
    const ws = FakeSocket.all[0];
    ws.frame([log(1), log(2), { type: 'run-result', result: { runId: 'r' } }, log(3)]);
    ws.frame(log(4));
    // Seen already (as after a reconnect whose replay starts earlier): 3 and 4 are not repeated.
    ws.frame([log(3), log(4), log(5)]);
    stop();
    expect(got.map((m) => ('seq' in m ? m.seq : m.type))).toEqual([1, 2, 'run-result', 3, 4, 5]);
  });
});
