/**
 * guardConnections (main/api/connections.ts) on a real loopback server: the per-peer cap sheds the
 * oldest idle socket of that peer only (127.0.0.1 and ::1 are two peers), a socket with a request
 * in flight is never shed (a new one is refused instead when every socket in scope is busy), and a
 * trusted socket neither counts against the caps nor is shed; a request that times out gets a
 * 408 and is counted. Counts are worked out by hand.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardConnections, type ConnectionGuard } from '../../../main/api/connections';

let server: http.Server;
let guard: ConnectionGuard;
const sockets: net.Socket[] = [];
const held: http.ServerResponse[] = [];

async function start(maxUntrusted: number, maxUntrustedPerPeer: number, timeouts: http.ServerOptions = {}): Promise<number> {
  server = http.createServer(timeouts, (req, res) => {
    guard.busy(req.socket);
    res.once('close', () => guard.idle(req.socket));
    if (req.url === '/trust') {
      guard.trust(req.socket);
      return void res.end('ok');
    }
    held.push(res); // /hold: answered only when the test ends
  });
  guard = guardConnections(server, { maxUntrusted, maxUntrustedPerPeer, hardMax: 100 });
  await new Promise<void>((r) => server.listen(0, '::', r));
  const addr = server.address();
  return typeof addr === 'object' && addr ? addr.port : 0;
}

afterEach(async () => {
  for (const res of held.splice(0)) res.end();
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

/** Opens a socket from `host`; resolves once connected, with a flag that turns true when closed. */
async function open(port: number, host: string): Promise<{ sock: net.Socket; closed: () => boolean }> {
  let closed = false;
  const sock = net.connect({ host, port });
  sock.on('error', () => undefined);
  sock.on('close', () => (closed = true));
  await new Promise((r) => sock.once('connect', r));
  sockets.push(sock);
  return { sock, closed: () => closed };
}

const settle = () => new Promise((r) => setTimeout(r, 150));

function request(sock: net.Socket, path: string): Promise<void> {
  return new Promise((resolve) => {
    sock.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    if (path === '/trust') sock.once('data', () => resolve());
    else setTimeout(resolve, 100);
  });
}

describe('guardConnections', () => {
  it('sheds the oldest idle socket of the peer over its cap, not another peer’s', async () => {
    const port = await start(10, 3);
    const v4 = [];
    for (let i = 0; i < 5; i++) v4.push(await open(port, '127.0.0.1'));
    const v6 = [];
    for (let i = 0; i < 3; i++) v6.push(await open(port, '::1'));
    await settle();
    // 127.0.0.1: the 4th and 5th shed the 1st and 2nd; ::1 is another peer, within its cap.
    expect(v4.map((c) => c.closed())).toEqual([true, true, false, false, false]);
    expect(v6.map((c) => c.closed())).toEqual([false, false, false]);
    expect(guard.counters.shed).toBe(2);
  });

  it('never sheds a socket with a request in flight; refuses the newcomer when all are busy', async () => {
    const port = await start(2, 2);
    const a = await open(port, '127.0.0.1');
    const b = await open(port, '127.0.0.1');
    await request(a.sock, '/hold');
    await request(b.sock, '/hold');
    const c = await open(port, '127.0.0.1');
    await settle();
    expect([a.closed(), b.closed(), c.closed()]).toEqual([false, false, true]);
    expect(guard.counters).toMatchObject({ shed: 0, refused: 1 });
  });

  it('a trusted socket leaves the caps and is never shed', async () => {
    const port = await start(2, 2);
    const t = await open(port, '127.0.0.1');
    await request(t.sock, '/trust');
    const others = [];
    for (let i = 0; i < 4; i++) others.push(await open(port, '127.0.0.1'));
    await settle();
    // Two untrusted may stay: the 3rd and 4th shed the 1st and 2nd; the trusted one stays.
    expect(t.closed()).toBe(false);
    expect(others.map((c) => c.closed())).toEqual([true, true, false, false]);
  });

  it('answers a request whose headers never finish with 408 and counts it', async () => {
    const port = await start(10, 10, { headersTimeout: 300, requestTimeout: 300, connectionsCheckingInterval: 100 });
    const c = await open(port, '127.0.0.1');
    let got = '';
    c.sock.on('data', (d: Buffer) => (got += d.toString('latin1')));
    c.sock.write('GET / HTTP/1.1\r\nHost: x\r\n'); // no blank line: the headers never end
    const deadline = Date.now() + 20_000;
    while (!c.closed() && Date.now() < deadline) await settle();
    expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(guard.counters.requestTimeouts).toBe(1);
  }, 30_000);
});
