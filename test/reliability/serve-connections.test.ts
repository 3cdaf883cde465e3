/**
 * Connection limits (issue 29.4): idle sockets parked by a client without the token used to be
 * kept until the idle timeout (20 000 of them exhausted serve's descriptors and kept the UI out).
 * Now untrusted sockets are capped (here GPUFLOW_SERVE_MAX_UNTRUSTED=40): past the cap the
 * oldest idle ones are shed, a new client with the token is answered, and a keep-alive
 * connection that has shown the token is never shed. Aborted uploads are counted (one line when
 * serve stops) instead of each logging an `Error: aborted` stack as an internal 500.
 */
import net from 'node:net';
import path from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServe, tempDir, type Serving } from './helpers';

let s: Serving;
let dir: string;
const CAP = 40;

beforeAll(async () => {
  dir = tempDir();
  s = await startServe(['--virtual-gpus', '1', '--backend', 'js', '--threads', '1', '--db', path.join(dir, 'gpuflow.db')], { GPUFLOW_NO_BUNDLE: '1', GPUFLOW_SERVE_MAX_UNTRUSTED: String(CAP) });
}, 90_000);

afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function connect(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port: s.port }, () => resolve(sock));
    sock.on('error', reject);
  });
}

/** Sends one keep-alive GET on `sock` and resolves with the status line's code once the whole answer (sized or chunked) is in; -1 if closed first. */
function getOn(sock: net.Socket, route: string): Promise<number> {
  return new Promise((resolve) => {
    let got = '';
    const onData = (d: Buffer) => {
      got += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})[\s\S]*?\r\n\r\n/.exec(got);
      const len = /content-length: (\d+)/i.exec(got);
      const whole = len ? got.length >= got.indexOf('\r\n\r\n') + 4 + Number(len[1]) : got.endsWith('\r\n0\r\n\r\n');
      if (m && whole) {
        sock.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    sock.on('data', onData);
    sock.once('close', () => resolve(-1));
    sock.write(`GET ${route} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: Bearer ${s.token}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

describe('serve: connection limits', () => {
  it('sheds the oldest idle untrusted sockets past the cap; the token holder is answered and its socket kept', { timeout: 60_000 }, async () => {
    const trusted = await connect();
    expect(await getOn(trusted, '/api/devices')).toBe(200);
    const idle: net.Socket[] = [];
    const closed = new Set<number>();
    for (let i = 0; i < 5 * CAP; i++) {
      const sock = await connect();
      sock.on('error', () => undefined);
      sock.on('close', () => closed.add(i));
      idle.push(sock);
    }
    // A new client with the token (a fresh connection, like the UI's next fetch) is answered.
    const fresh = await api(s, 'GET', '/api/devices');
    expect(fresh.status).toBe(200);
    // The keep-alive socket that showed the token is still open and answered.
    expect(await getOn(trusted, '/api/workers')).toBe(200);
    // At most CAP untrusted sockets stay open; the oldest were shed first.
    await new Promise((r) => setTimeout(r, 200));
    const open = idle.length - closed.size;
    expect(open).toBeLessThanOrEqual(CAP);
    expect(closed.has(0)).toBe(true);
    expect(closed.has(idle.length - 1)).toBe(false);
    for (const sock of [...idle, trusted]) sock.destroy();
  });

  it('counts aborted uploads instead of logging each as an internal error', { timeout: 60_000 }, async () => {
    for (let i = 0; i < 5; i++) {
      const sock = await connect();
      sock.on('error', () => undefined);
      const body = '{"doc":';
      sock.write(`POST /api/validate HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: Bearer ${s.token}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n${body}`);
      await new Promise((r) => setTimeout(r, 100));
      sock.destroy();
    }
    await new Promise((r) => setTimeout(r, 300));
    expect((await api(s, 'GET', '/api/devices')).status).toBe(200);
    await s.stop();
    expect(s.stderr()).not.toMatch(/Error: aborted|internal error|    at /);
    expect(s.stderr()).toMatch(/gpuflow serve: 5 client aborts, 0 request timeouts, \d+ idle connections shed/);
  });
});
