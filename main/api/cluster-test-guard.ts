/**
 * What the connection test (POST /api/cluster/test, the toolbar's Test) may reach. Left open it
 * is a port scanner run from this machine: any host and port, with "refused" and "no answer"
 * told apart. So it connects only to loopback addresses and to the cluster the user configured
 * (the target in use, or the one remembered in the store); it answers every unreachable address
 * with one message, no sooner than the probe's full timeout (a closed port would otherwise answer
 * at once and a filtered one after PROBE_MS); and it runs at most MAX_TESTS times a minute.
 */
import { isIP } from 'node:net';
import { ApiError } from './api-error';
import { PROBE_MS } from '../dask/reachable';

export const MAX_TESTS = 6;
export const WINDOW_MS = 60_000;

/** Whether host (as in tcp://HOST:port, IPv6 in brackets) is this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** The host of a parsed tcp:// or tls:// target, or null for local:N / local-cuda. */
function hostOf(target: string): string | null {
  const m = /^(?:tcp|tls):\/\/(\[[^\]]+\]|[^:/]+):\d+$/.exec(target);
  return m ? m[1]! : null;
}

/** The one message of every address the test could not reach (refused, filtered, not a scheduler). */
export function unreachableMessage(target: string): string {
  return `cannot reach a Dask scheduler at ${target}`;
}

export class ClusterTestGuard {
  private readonly times: number[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Throws the API's refusal of a test of `target` (403 not allowed, 429 too many), else counts it. */
  admit(target: string, configured: readonly (string | null)[]): void {
    const host = hostOf(target);
    if (host !== null && !isLoopbackHost(host) && !configured.includes(target)) {
      throw new ApiError(403, `the connection test reaches loopback addresses and the configured cluster only, not ${target}: select it with Use (PUT /api/cluster) to connect to it`);
    }
    const t = this.now();
    while (this.times.length && t - this.times[0]! >= WINDOW_MS) this.times.shift();
    if (this.times.length >= MAX_TESTS) {
      const wait = Math.ceil((WINDOW_MS - (t - this.times[0]!)) / 1000);
      throw new ApiError(429, `too many connection tests: at most ${MAX_TESTS} a minute; try again in ${wait} s`);
    }
    this.times.push(t);
  }

  /** Milliseconds to hold an "unreachable" answer of a test that began at `startedAt`, so every one takes PROBE_MS. */
  holdFor(startedAt: number): number {
    return Math.max(0, startedAt + PROBE_MS - this.now());
  }
}
