/**
 * `gpuflow serve` against hostile requests (issue 19), over raw sockets on 127.0.0.1 so nothing
 * normalises what is sent: the single requests that used to kill it (Host `[`, a malformed
 * cookie, a malformed percent-encoded path, the same on a WebSocket upgrade) now get a 4xx; 1 000
 * seeded random malformed requests (Host, cookies, paths, methods, headers, truncated bodies)
 * each get an HTTP answer, none is a 5xx other than the guard's logged 500, and serve is alive
 * afterwards; Host names that are not this server (DNS rebinding) and cross-origin API requests
 * are refused; a body must be JSON; a 17 MB body gets 413; nesting 2 000 deep gets a 400 naming
 * the field.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, figures, prng, seedDoc, startServe, tempDir, type Rng, type Serving } from './helpers';

let s: Serving;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  // A stand-in UI so static answers are 200/404, not "UI not built" (503).
  mkdirSync(path.join(dir, 'ui'));
  writeFileSync(path.join(dir, 'ui/index.html'), '<!doctype html><title>ui</title>');
  s = await startServe(['--virtual-gpus', '1', '--backend', 'js', '--threads', '1', '--db', path.join(dir, 'gpuflow.db')], { GPUFLOW_RENDERER_DIR: path.join(dir, 'ui') });
}, 90_000);

afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Sends `raw` on a fresh socket (optionally half-closing after it) and returns the status of the
 * first response line, or -1 when the connection closed with no HTTP answer.
 */
function rawRequest(raw: Buffer | string, port: number, halfClose = false): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    let got = '';
    const t = setTimeout(() => sock.destroy(), 30_000);
    sock.on('data', (d: Buffer) => (got += d.toString('latin1')));
    sock.on('end', () => sock.end());
    sock.on('error', () => undefined);
    sock.on('close', () => {
      clearTimeout(t);
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(got);
      resolve({ status: m ? Number(m[1]) : -1, text: got });
    });
    sock.write(raw, () => {
      if (halfClose) sock.end();
    });
  });
}

const req = (lines: string[], body = '') => `${lines.join('\r\n')}\r\n\r\n${body}`;

describe('serve: the requests that used to kill it', () => {
  it('answers Host [, a malformed cookie, a malformed path and a bad upgrade with 4xx and stays up', async () => {
    const p = s.port;
    const auth = `Authorization: Bearer ${s.token}`;
    const probes = {
      hostBracket: req(['GET / HTTP/1.1', 'Host: [', 'Connection: close']),
      apiHostBracket: req(['GET /api/catalog HTTP/1.1', 'Host: [', auth, 'Connection: close']),
      cookie: req(['GET / HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Cookie: gpuflow_token=%E0%A4%A', 'Connection: close']),
      portCookie: req(['GET / HTTP/1.1', `Host: 127.0.0.1:${p}`, `Cookie: gpuflow_token_${p}=%E0%A4%A`, 'Connection: close']),
      path: req(['GET /%E0%A4%A HTTP/1.1', `Host: 127.0.0.1:${p}`, auth, 'Connection: close']),
      schemeRelative: req(['GET //[ HTTP/1.1', `Host: 127.0.0.1:${p}`, auth, 'Connection: close']),
      upgradeHost: req(['GET /api/events HTTP/1.1', 'Host: [', 'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==']),
      upgradePath: req(['GET //[ HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==']),
    };
    const statuses: Record<string, number> = {};
    for (const [k, r] of Object.entries(probes)) statuses[k] = (await rawRequest(r, p)).status;
    figures('serve-crashers', statuses);
    expect(statuses).toEqual({ hostBracket: 400, apiHostBracket: 400, cookie: 401, portCookie: 401, path: 400, schemeRelative: 400, upgradeHost: 400, upgradePath: 400 });
    expect(s.child.exitCode).toBeNull();
    expect((await api(s, 'GET', '/api/catalog')).status).toBe(200);
  });
});

/** One random malformed request: its bytes and whether to half-close after them (a truncated body). */
function malformed(r: Rng, port: number, token: string): { raw: Buffer; halfClose: boolean } {
  const methods = ['GET', 'POST', 'DELETE', 'PUT', 'HEAD', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'G\x01T', 'post', '', 'GET GET', 'X'.repeat(300)];
  const paths = ['/', '/index.html', '/%E0%A4%A', '/%', '/%zz', '//[', '/api', '/api/', '/api/runs', '/api/validate', '/api/queue', '/api/runs/%E0%A4%A', '/api/runs/1/cancel', '/api/runs/abc', '/api/runs/99999999999999999999', '/api/compare?a=%E0&b=1', '/api/runs?limit=%E0%A4%A', '/api/runs?status=%00', '/api/workers/%2e%2e/restart', '/../../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/?token=%E0%A4%A', `/?token=${token}`, '/api/events', '*', 'http://evil.example/', '/\\\\evil', '/a\u00e9', '/' + 'a'.repeat(r.int(9000)), '/api/bench', `/api/catalog?token=${token}`, '/\x7f'];
  const hosts = ['[', ']', '[::1', '', ' ', `127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `127.0.0.1:${port + 1}`, `evil.example:${port}`, `127.0.0.1:99999`, `127.0.0.1:-1`, '127.0.0.1', 'a b', `user@127.0.0.1:${port}`, '%E0%A4%A', `127.0.0.1:${port}/x`, '\u00e9', 'x'.repeat(400)];
  const cookies = ['gpuflow_token=%E0%A4%A', `gpuflow_token_${port}=%E0%A4%A`, `gpuflow_token_${port}=${token}`, '=', ';;;', 'a=b; c', '%', `gpuflow_token_${port}`, 'x=' + '%'.repeat(100), `a=1; gpuflow_token_${port}=%; b`];
  const bodies = ['{', '{"doc":', '{"doc": {"nodes": [', 'null', '[]', '"x"', '\u0000', '{"doc":{},"params":{"a":{"b":1}}}', '{"doc":' + '['.repeat(5000), '\xff\xfe', '{"doc":1}'.repeat(3)];
  const lines: string[] = [];
  const version = r.pick(['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9', 'http/1.1', '']);
  lines.push(`${r.pick(methods)} ${r.pick(paths)} ${version}`.trimEnd());
  if (r.chance(0.9)) lines.push(`Host: ${r.pick(hosts)}`);
  if (r.chance(0.15)) lines.push(`Host: ${r.pick(hosts)}`);
  if (r.chance(0.5)) lines.push(`Cookie: ${r.pick(cookies)}`);
  if (r.chance(0.5)) lines.push(`Authorization: ${r.pick([`Bearer ${token}`, 'Bearer ', 'Bearer %E0%A4%A', 'Basic x', token])}`);
  if (r.chance(0.3)) lines.push(`Origin: ${r.pick([`http://127.0.0.1:${port}`, `http://127.0.0.1:${port + 1}`, 'null', '[', 'http://[', 'http://evil.example'])}`);
  if (r.chance(0.2)) lines.push(`Sec-Fetch-Site: ${r.pick(['same-origin', 'same-site', 'cross-site', 'none', '\u00e9'])}`);
  if (r.chance(0.4)) lines.push(`Content-Type: ${r.pick(['application/json', 'text/plain', 'application/json; charset=utf-8', 'multipart/form-data; boundary=x', ''])}`);
  if (r.chance(0.1)) lines.push(r.pick(['Upgrade: websocket', 'Connection: Upgrade', 'Transfer-Encoding: chunked', 'Transfer-Encoding: gzip, chunked', 'Expect: 100-continue', 'X: \x01', 'Bad Header: 1', ': empty', 'Content-Length: -1', 'Content-Length: 1, 2']));
  let body = r.chance(0.5) ? r.pick(bodies) : '';
  let halfClose = false;
  if (body && r.chance(0.3)) {
    // Truncated: the header promises more than is sent, then the client half-closes.
    lines.push(`Content-Length: ${Buffer.byteLength(body) + 1 + r.int(1000)}`);
    halfClose = true;
  } else if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  if (r.chance(0.05)) body = body.slice(0, r.int(body.length + 1));
  lines.push('Connection: close');
  const text = `${lines.join('\r\n')}\r\n\r\n${body}`;
  // Sometimes cut the request itself short (in the headers), also with a half-close.
  if (r.chance(0.05)) return { raw: Buffer.from(text.slice(0, r.int(text.length)), 'latin1'), halfClose: true };
  return { raw: Buffer.from(text, 'latin1'), halfClose };
}

describe('serve: 1 000 malformed requests', () => {
  it('answers every one, none with a 5xx but the guard, and stays up', async () => {
    const r = prng(19);
    const N = 1000;
    const statuses = new Map<number, number>();
    const unanswered: string[] = [];
    const fiveXX: string[] = [];
    const CONCURRENCY = 16;
    let next = 0;
    const worker = async () => {
      while (next < N) {
        next++;
        const { raw, halfClose } = malformed(r, s.port, s.token);
        const res = await rawRequest(raw, s.port, halfClose);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === -1) unanswered.push(raw.toString('latin1').slice(0, 200));
        if (res.status >= 500 && !res.text.includes('internal error (logged by serve)')) fiveXX.push(`${res.status}: ${raw.toString('latin1').slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const alive = s.child.exitCode === null && s.child.signalCode === null;
    const after = await api(s, 'GET', '/api/catalog');
    figures('serve-malformed', { requests: N, statuses: Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])), unanswered: unanswered.length, fiveXX: fiveXX.length, guard500: statuses.get(500) ?? 0, alive, afterStatus: after.status });
    expect(unanswered).toEqual([]);
    expect(fiveXX).toEqual([]);
    expect(alive).toBe(true);
    expect(after.status).toBe(200);
    expect(s.stderr()).not.toMatch(/Uncaught|TypeError: Invalid URL|URIError/);
  }, 180_000);
});

describe('serve: same-origin, Host and body rules', () => {
  const small = () => ({ doc: { ...seedDoc(), params: { N: 200, chunks: 100, seed: 0, dtype: 'float64' } } });
  const post = (route: string, headers: Record<string, string>, body: string) => fetch(`${s.base}${route}`, { method: 'POST', headers: { authorization: `Bearer ${s.token}`, ...headers }, body });

  it('refuses other Host names, cross-origin API requests and non-JSON bodies; keeps serving its own', async () => {
    const p = s.port;
    const auth = `Authorization: Bearer ${s.token}`;
    const host = async (h: string) => (await rawRequest(req([`GET /api/catalog HTTP/1.1`, `Host: ${h}`, auth, 'Connection: close']), p)).status;
    const hosts = { own: await host(`127.0.0.1:${p}`), localhost: await host(`localhost:${p}`), rebound: await host(`attacker.example:${p}`), otherPort: await host(`127.0.0.1:${p + 1}`) };
    const body = JSON.stringify(small());
    const status = {
      crossOriginPort: (await post('/api/validate', { 'content-type': 'application/json', origin: `http://127.0.0.1:${p + 1}` }, body)).status,
      crossSiteFetch: (await post('/api/validate', { 'content-type': 'application/json', 'sec-fetch-site': 'same-site' }, body)).status,
      textPlain: (await post('/api/validate', { 'content-type': 'text/plain' }, body)).status,
      sameOrigin: (await post('/api/validate', { 'content-type': 'application/json', origin: `http://127.0.0.1:${p}`, 'sec-fetch-site': 'same-origin' }, body)).status,
      cookieOnlyApi: (await fetch(`${s.base}/api/catalog`, { headers: { cookie: `gpuflow_token_${p}=${s.token}` } })).status,
      cookieStatic: (await fetch(`${s.base}/`, { headers: { cookie: `gpuflow_token_${p}=${s.token}` } })).status,
    };
    figures('serve-origin-host', { hosts, ...status });
    expect(hosts).toEqual({ own: 200, localhost: 200, rebound: 403, otherPort: 403 });
    expect(status).toEqual({ crossOriginPort: 403, crossSiteFetch: 403, textPlain: 415, sameOrigin: 200, cookieOnlyApi: 401, cookieStatic: 200 });
  });

  it('answers a 17 MB body with 413 and 2 000-deep params with a 400 naming the field', async () => {
    const big = await fetch(`${s.base}/api/validate`, { method: 'POST', headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' }, body: `{"doc":"${'x'.repeat(17 * 1024 * 1024)}"}` });
    let nested: unknown = 1;
    for (let i = 0; i < 2000; i++) nested = { a: nested };
    const deep = await api(s, 'POST', '/api/validate', { doc: seedDoc(), params: { x: nested } });
    const deepError = (deep.json as { error: string }).error;
    figures('serve-body-limits', { bigStatus: big.status, deepStatus: deep.status, deepError: deepError.slice(0, 120) });
    expect(big.status).toBe(413);
    expect(deep.status).toBe(400);
    expect(deepError).toMatch(/^body\.params\.x(\.a)+: nested deeper than 64 levels/);
    expect((await api(s, 'GET', '/api/catalog')).status).toBe(200);
  }, 60_000);
});
