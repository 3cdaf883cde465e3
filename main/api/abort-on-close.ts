/**
 * A signal that aborts when a request's client goes away before its answer was sent (issue 29
 * item 5: a compile went on for a minute after its client had gone). The response's 'close'
 * fires when the socket closes or the answer ends; only the first case aborts.
 */
import type { ServerResponse } from 'node:http';

export function abortOnClose(res: ServerResponse): AbortSignal {
  const ac = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) ac.abort('the client went away before its answer');
  });
  return ac.signal;
}
