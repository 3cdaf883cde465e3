/**
 * `gpuflow serve` as a user and an attacker see it: the token guards HTTP (401) and the WebSocket
 * (403), it binds 127.0.0.1, sends a strict CSP, refuses cross-origin upgrades; random request
 * bodies get 4xx (or a 200 validation answer), never a 5xx or a dead server; 10 concurrent runs
 * all finish with the right answers (checked against the in-process js runner); a WebSocket
 * client that disconnects and reconnects with ?since=<last seq> receives every event once, in order.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { runLocal } from '../helpers/local-run';
import { api, figures, prng, seedDoc, SOAK, startServe, tempDir, type Serving } from './helpers';

let s: Serving;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  s = await startServe(['--virtual-gpus', '2', '--backend', 'js', '--threads', '1', '--db', path.join(dir, 'gpuflow.db')]);
}, 90_000);

afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Opens a WebSocket with its message listener attached at once: the server replays its backlog
 * right after the upgrade, so a listener added after 'open' would miss the first frames. Each
 * frame is an array of messages (event-stream.ts batches them); the listener gets them one by one.
 */
function wsOpen(url: string, headers: Record<string, string> = {}, onMessage: (m: Record<string, unknown>, ws: WebSocket) => void = () => undefined): Promise<{ ws: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('message', (buf) => {
      for (const m of JSON.parse(buf.toString()) as Array<Record<string, unknown>>) onMessage(m, ws);
    });
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => resolve({ ws, status: res.statusCode }));
    ws.once('error', () => resolve({ ws, status: -1 }));
  });
}

const wsUrl = (since = 0, token?: string) => `ws://127.0.0.1:${s.port}/api/events?since=${since}${token ? `&token=${token}` : ''}`;

describe('serve: access', () => {
  it('needs the token for HTTP and WebSocket, binds 127.0.0.1, sets a strict CSP, refuses other origins', async () => {
    expect(new URL(s.base).hostname).toBe('127.0.0.1');
    const noToken = await fetch(`${s.base}/api/catalog`);
    const wrong = await fetch(`${s.base}/api/catalog`, { headers: { authorization: 'Bearer wrong-token-wrong-token' } });
    const wrongQuery = await fetch(`${s.base}/api/runs?token=${s.token}x`);
    const staticNoToken = await fetch(`${s.base}/`);
    const good = await api(s, 'GET', '/api/catalog');
    expect([noToken.status, wrong.status, wrongQuery.status, staticNoToken.status]).toEqual([401, 401, 401, 401]);
    expect(good.status).toBe(200);
    const csp = noToken.headers.get('content-security-policy') ?? '';
    for (const d of ["default-src 'self'", "script-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'"]) expect(csp).toContain(d);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);

    const wsNoToken = await wsOpen(wsUrl());
    const wsWrong = await wsOpen(wsUrl(0, 'nope-nope-nope-nope'));
    const wsEvil = await wsOpen(wsUrl(0, s.token), { origin: 'http://evil.example' });
    const wsOk = await wsOpen(wsUrl(0, s.token), { origin: `http://127.0.0.1:${s.port}` });
    expect([wsNoToken.status, wsWrong.status, wsEvil.status]).toEqual([403, 403, 403]);
    expect(wsOk.status).toBeUndefined();
    wsOk.ws.close();
    figures('serve-access', { httpNoToken: noToken.status, httpWrongToken: wrong.status, wsNoToken: wsNoToken.status, wsCrossOrigin: wsEvil.status, bind: new URL(s.base).hostname, csp });
  });
});

describe('serve: random request bodies', () => {
  it('answers every one with 200 or 4xx and stays up', async () => {
    const r = prng(5);
    const small = { ...seedDoc(), params: { N: 200, chunks: 100, seed: 0, dtype: 'float64' } };
    const KEYS = ['doc', 'params', 'repeat', 'warmup', 'format', 'nodes', 'edges', 'op', 'shape'];
    const junk = (d = 0): unknown => {
      const k = r.int(d > 2 ? 5 : 7);
      if (k === 0) return r.pick([null, true, 0, -1, 1e308, '', 'x', '../../etc/passwd', '$N']);
      if (k === 1) return r.next() * 1e6;
      if (k === 2) return r.pick(KEYS);
      if (k === 3) return 'y'.repeat(r.int(2000));
      if (k === 4) return [junk(d + 1), junk(d + 1)];
      return Object.fromEntries(Array.from({ length: r.int(4) }, () => [r.pick(KEYS), junk(d + 1)]));
    };
    const mutatedDoc = () => {
      const d = JSON.parse(JSON.stringify(small)) as Record<string, unknown> & { nodes: Array<Record<string, unknown>> };
      const n = d.nodes[r.int(d.nodes.length)];
      const key = r.pick(['op', 'params', 'id', 'extra']);
      n[key] = junk();
      return d;
    };
    const statuses: Record<string, Record<number, number>> = {};
    const n = SOAK ? 3000 : 600;
    let runsStarted = 0;
    for (let i = 0; i < n; i++) {
      const route = i % 5 === 4 ? '/api/bench' : i % 2 ? '/api/validate' : '/api/runs';
      const kind = r.int(4);
      // Bench bodies never hold a valid document: a real benchmark would start four pools.
      const body = kind === 0 ? { doc: route === '/api/bench' ? { ...small, format: 'nope' } : mutatedDoc() } : kind === 1 ? junk() : undefined;
      const raw = kind === 2 ? Buffer.from(Array.from({ length: r.int(100) }, () => r.int(256))).toString('latin1') : kind === 3 ? '{"doc": {"format": ' : undefined;
      const res = await api(s, 'POST', route, body ?? (raw === undefined ? {} : undefined), raw);
      (statuses[route] ??= {})[res.status] = (statuses[route][res.status] ?? 0) + 1;
      if (route === '/api/runs' && res.status === 200) runsStarted++;
      expect(res.status, `${route} #${i}: ${JSON.stringify(res.json).slice(0, 300)}`).toBeLessThan(500);
    }
    const alive = await api(s, 'GET', '/api/workers');
    expect(alive.status).toBe(200);
    figures('serve-http-fuzz', { requests: n, statuses, runsStarted, serverUp: s.child.exitCode === null });
  }, 120_000);
});

describe('serve: 10 concurrent runs and a reconnecting event stream', () => {
  it('finishes all 10 with correct answers; the reconnecting client misses and repeats nothing', async () => {
    const RUNS = 10;
    const params = Array.from({ length: RUNS }, (_, i) => ({ N: 600 + 100 * i, chunks: 200, seed: i, dtype: 'float64' }));
    const expected = await Promise.all(params.map(async (p) => ((await runLocal(seedDoc(), p)).total as { value: number }).value));

    const controlSeqs: number[] = [];
    const ids = new Set<string>();
    const results = new Map<string, { status: string; value: number }>();
    let resolveAll!: () => void;
    const allDone = new Promise<void>((r) => (resolveAll = r));
    const control = await wsOpen(wsUrl(0, s.token), {}, (raw) => {
      const m = raw as { type: string; seq?: number; result?: { runId: string; status: string; results: { total?: { value: number } } } };
      if (m.type === 'run-result' && m.result) {
        results.set(m.result.runId, { status: m.result.status, value: m.result.results.total?.value ?? NaN });
        if (ids.size === RUNS && [...ids].every((id) => results.has(id))) resolveAll();
      } else if (typeof m.seq === 'number' && m.seq > 0) controlSeqs.push(m.seq);
    });

    // The flaky client: drops its socket every few events and resumes from the last seq it saw.
    const flakySeqs: number[] = [];
    let reconnects = 0;
    let stopFlaky = false;
    let lastSeq = 0;
    const flakyLoop = (async () => {
      while (!stopFlaky) {
        const budget = 20 + (reconnects % 7) * 15;
        let got = 0;
        let closed = false;
        const { ws, status } = await wsOpen(wsUrl(lastSeq, s.token), {}, (m, sock) => {
          // Frames that arrive after we dropped the socket are not "received": a real renderer
          // that lost its connection never sees them.
          if (closed || typeof m.seq !== 'number' || m.seq === 0) return;
          flakySeqs.push(m.seq);
          lastSeq = m.seq;
          if (++got >= budget && !stopFlaky) {
            closed = true;
            sock.terminate();
          }
        });
        if (status !== undefined) throw new Error(`reconnect refused: ${status}`);
        await new Promise<void>((res) => {
          ws.on('close', () => res());
          const iv = setInterval(() => {
            if (stopFlaky) {
              clearInterval(iv);
              ws.close();
            }
          }, 50);
          ws.on('close', () => clearInterval(iv));
        });
        reconnects++;
      }
    })();

    const t0 = Date.now();
    const started = await Promise.all(params.map((p) => api(s, 'POST', '/api/runs', { doc: seedDoc(), params: p })));
    for (const st of started) {
      expect(st.status).toBe(200);
      ids.add((st.json as { runId: string }).runId);
    }
    if ([...ids].every((id) => results.has(id))) resolveAll();
    await allDone;
    const ms = Date.now() - t0;
    // Let the last events reach both clients, then stop the flaky one.
    await new Promise((r) => setTimeout(r, 500));
    stopFlaky = true;
    await flakyLoop;
    control.ws.close();

    const order = [...ids];
    const got = started.map((st) => results.get((st.json as { runId: string }).runId)!);
    const wrong = got.filter((g, i) => g.status !== 'finished' || Math.abs(g.value - expected[i]) > 1e-9 * Math.abs(expected[i])).length;
    const dup = flakySeqs.length - new Set(flakySeqs).size;
    const outOfOrder = flakySeqs.filter((x, i) => i > 0 && x <= flakySeqs[i - 1]).length;
    const controlSet = new Set(controlSeqs);
    // Compared over the span the flaky client covered: it stops listening once the runs are over.
    const flakySet = new Set(flakySeqs);
    const lastFlaky = flakySeqs[flakySeqs.length - 1];
    const missingSeqs = controlSeqs.filter((x) => x >= flakySeqs[0] && x <= lastFlaky && !flakySet.has(x));
    const missing = missingSeqs.length;
    const extra = flakySeqs.filter((x) => !controlSet.has(x)).length;
    figures('serve-concurrent-runs', { runs: RUNS, finishedCorrect: RUNS - wrong, wallMs: ms, runIds: order.length });
    figures('ws-reconnect', { reconnects, eventsControl: controlSeqs.length, eventsFlaky: flakySeqs.length, duplicates: dup, outOfOrder, missing, extra, firstMissing: missingSeqs.slice(0, 5), lastFlaky, lastControl: controlSeqs[controlSeqs.length - 1] });
    expect(wrong).toBe(0);
    expect(reconnects).toBeGreaterThanOrEqual(3);
    expect(dup).toBe(0);
    expect(outOfOrder).toBe(0);
    expect(missing).toBe(0);
    expect(extra).toBe(0);
  }, 120_000);
});
