/** The request signal serve hands to compiles (main/api/abort-on-close.ts), on a real loopback server. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { abortOnClose } from '../../../main/api/abort-on-close';

function server(handler: (signal: AbortSignal, res: http.ServerResponse) => void): Promise<{ port: number; close: () => void }> {
  const s = http.createServer((_req, res) => handler(abortOnClose(res), res));
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve({ port: (s.address() as AddressInfo).port, close: () => s.close() })));
}

describe('abortOnClose', () => {
  it('aborts when the client goes away before its answer', async () => {
    let seen!: (s: AbortSignal) => void;
    const got = new Promise<AbortSignal>((r) => (seen = r));
    const srv = await server((signal) => seen(signal)); // never answers
    const req = http.request({ host: '127.0.0.1', port: srv.port, path: '/', method: 'GET' });
    req.on('error', () => undefined);
    req.end();
    const signal = await got;
    expect(signal.aborted).toBe(false);
    const aborted = new Promise<void>((r) => signal.addEventListener('abort', () => r()));
    req.destroy();
    await aborted;
    expect(signal.aborted).toBe(true);
    srv.close();
  });

  it('does not abort once the answer was sent', async () => {
    let signal!: AbortSignal;
    const srv = await server((s, res) => {
      signal = s;
      res.end('ok');
    });
    const body = await fetch(`http://127.0.0.1:${srv.port}/`).then((r) => r.text());
    expect(body).toBe('ok');
    await new Promise((r) => setTimeout(r, 50));
    expect(signal.aborted).toBe(false);
    srv.close();
  });
});
