/**
 * A TCP check of a scheduler address before the bridge starts: an address nobody answers on is
 * reported within PROBE_MS, naming it, instead of after Python has imported Dask and its client
 * has timed out (the CLI must exit within 10 s). A reachable address goes on to the bridge, which
 * does the real handshake (and reports version mismatches).
 */
import { connect } from 'node:net';

export const PROBE_MS = 3000;

/** null when something accepts TCP connections at `address` (tcp://host:port), else why not. */
export function probeScheduler(address: string, timeoutMs = PROBE_MS): Promise<string | null> {
  const m = /^(?:tcp|tls):\/\/(\[[^\]]+\]|[^:/]+):(\d+)$/.exec(address);
  if (!m) return Promise.resolve(null);
  const host = m[1].replace(/^\[|\]$/g, '');
  const port = Number(m[2]);
  return new Promise((resolve) => {
    const s = connect({ host, port });
    const done = (why: string | null) => {
      s.destroy();
      clearTimeout(timer);
      resolve(why);
    };
    const timer = setTimeout(() => done(`no answer within ${timeoutMs / 1000} s`), timeoutMs);
    s.once('connect', () => done(null));
    s.once('error', (e: NodeJS.ErrnoException) => done(e.code === 'ECONNREFUSED' ? 'connection refused' : e.code === 'ENOTFOUND' ? 'unknown host' : (e.code ?? e.message)));
  });
}
