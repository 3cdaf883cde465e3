/**
 * The connection test's limits (main/api/cluster-test-guard.ts): loopback hosts and the
 * configured cluster only (403 otherwise, before any connection), at most MAX_TESTS a minute
 * (429 with the wait), and every unreachable answer held to the probe's full timeout.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../main/api/api-error';
import { ClusterTestGuard, isLoopbackHost, MAX_TESTS, unreachableMessage, WINDOW_MS } from '../../../main/api/cluster-test-guard';
import { PROBE_MS } from '../../../main/dask/reachable';

function refusal(f: () => void): ApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('not refused');
}

describe('connection test guard', () => {
  it('knows loopback hosts', () => {
    for (const h of ['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '[::1]', '::1']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['10.0.0.1', '192.168.1.2', '128.0.0.1', '[::2]', 'example.com', '127.0.0.1.example.com', '0.0.0.0']) expect(isLoopbackHost(h), h).toBe(false);
  });

  it('refuses another host unless it is the configured cluster (403)', () => {
    const g = new ClusterTestGuard(() => 0);
    const e = refusal(() => g.admit('tcp://10.1.2.3:8786', [null, 'tcp://10.9.9.9:8786']));
    expect(e.status).toBe(403);
    expect(e.message).toBe('the connection test reaches loopback addresses and the configured cluster only, not tcp://10.1.2.3:8786: select it with Use (PUT /api/cluster) to connect to it');
    expect(() => g.admit('tcp://10.9.9.9:8786', [null, 'tcp://10.9.9.9:8786'])).not.toThrow();
    expect(() => g.admit('tls://[::1]:8786', [])).not.toThrow();
    expect(() => g.admit('tcp://localhost:1', [])).not.toThrow();
  });

  it(`runs at most ${MAX_TESTS} tests a minute (429 naming the wait), then again once the minute has passed`, () => {
    let now = 1_000_000;
    const g = new ClusterTestGuard(() => now);
    for (let i = 0; i < MAX_TESTS; i++) {
      g.admit(`tcp://127.0.0.1:${1000 + i}`, []);
      now += 1000;
    }
    const e = refusal(() => g.admit('tcp://127.0.0.1:2000', []));
    expect(e.status).toBe(429);
    // The first test was at 1_000_000, now is 1_000_000 + MAX_TESTS s: it leaves the window in 60 - MAX_TESTS s.
    expect(e.message).toBe(`too many connection tests: at most ${MAX_TESTS} a minute; try again in ${60 - MAX_TESTS} s`);
    now = 1_000_000 + WINDOW_MS;
    expect(() => g.admit('tcp://127.0.0.1:2000', [])).not.toThrow();
  });

  it('holds an unreachable answer until the probe timeout has passed, one message for every cause', () => {
    let now = 5000;
    const g = new ClusterTestGuard(() => now);
    expect(g.holdFor(5000)).toBe(PROBE_MS);
    now = 5000 + PROBE_MS + 1;
    expect(g.holdFor(5000)).toBe(0);
    expect(unreachableMessage('tcp://127.0.0.1:9')).toBe('cannot reach a Dask scheduler at tcp://127.0.0.1:9');
  });
});
