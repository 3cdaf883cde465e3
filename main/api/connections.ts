/**
 * Connection limits for serve (issue 29.4): two local clients holding 10 500 idle sockets each
 * used to exhaust serve's file descriptors, refusing every new connection, the UI's included,
 * until the idle timeout closed them.
 *
 * Policy: a socket is *trusted* once a request on it has passed the token check (the UI and any
 * client holding the token); the others are untrusted. Untrusted sockets are capped in all
 * (`maxUntrusted`) and per peer address (`maxUntrustedPerPeer`). A new connection over a cap
 * sheds the oldest *idle* untrusted socket of that scope (no request in flight), so an attacker's
 * parked sockets make room for the UI's next connection instead of keeping it out; when none is
 * idle the new one is closed. Trusted sockets are never shed; `server.maxConnections` is the hard
 * backstop above both, so descriptors stay bounded whatever happens. On loopback every local
 * process is the same peer address, so there the global cap and the shedding do the work.
 *
 * Client aborts (an upload cut off) and request timeouts (answered 408) are counted here rather
 * than logged as internal errors with a stack: a client could otherwise fill the log at will.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface ConnectionLimits {
  /** Untrusted sockets open at once, all peers together. */
  maxUntrusted: number;
  /** Untrusted sockets open at once from one peer address. */
  maxUntrustedPerPeer: number;
  /** server.maxConnections: the hard cap on all sockets (trusted ones are never shed). */
  hardMax: number;
}

/** Counted instead of logged; `serve` prints them once when it stops. */
export interface ConnectionCounters {
  clientAborts: number;
  requestTimeouts: number;
  /** Idle untrusted sockets closed to make room for a new connection. */
  shed: number;
  /** New connections closed because every untrusted socket in their scope was busy. */
  refused: number;
}

/** Defaults: well under the usual 1 024-descriptor soft limit, leaving room for the DB, workers and the trusted. */
export const DEFAULT_LIMITS: ConnectionLimits = { maxUntrusted: 384, maxUntrustedPerPeer: 384, hardMax: 768 };

/** Limits from GPUFLOW_SERVE_MAX_UNTRUSTED (total; per peer the same) when set, else the defaults. */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): ConnectionLimits {
  const raw = env.GPUFLOW_SERVE_MAX_UNTRUSTED;
  if (raw === undefined || raw === '') return DEFAULT_LIMITS;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`GPUFLOW_SERVE_MAX_UNTRUSTED must be a positive integer, got '${raw}'`);
  return { maxUntrusted: n, maxUntrustedPerPeer: n, hardMax: Math.max(DEFAULT_LIMITS.hardMax, 2 * n) };
}

interface Tracked {
  peer: string;
  trusted: boolean;
  inFlight: number;
}

export interface ConnectionGuard {
  readonly counters: ConnectionCounters;
  /** Marks the request's socket trusted (its request passed the token check). */
  trust(socket: Socket): void;
  /** A request started on / finished with this socket: busy sockets are never shed. */
  busy(socket: Socket): void;
  idle(socket: Socket): void;
}

/** Applies `limits` to `server` (see the module comment). */
export function guardConnections(server: Server, limits: ConnectionLimits): ConnectionGuard {
  server.maxConnections = limits.hardMax;
  // Insertion order is age: the first idle untrusted entry is the oldest.
  const open = new Map<Socket, Tracked>();
  const perPeer = new Map<string, number>();
  const counters: ConnectionCounters = { clientAborts: 0, requestTimeouts: 0, shed: 0, refused: 0 };
  let untrusted = 0;

  const forget = (s: Socket) => {
    const t = open.get(s);
    if (!t) return;
    open.delete(s);
    if (!t.trusted) {
      untrusted--;
      perPeer.set(t.peer, (perPeer.get(t.peer) ?? 1) - 1);
    }
  };
  /** Sheds the oldest idle untrusted socket (of `peer` when given); false when none is idle. */
  const shedOne = (peer: string | null): boolean => {
    for (const [s, t] of open) {
      if (t.trusted || t.inFlight > 0 || (peer !== null && t.peer !== peer)) continue;
      forget(s);
      s.destroy();
      counters.shed++;
      return true;
    }
    return false;
  };

  server.on('connection', (s: Socket) => {
    const peer = s.remoteAddress ?? 'unknown';
    if (untrusted >= limits.maxUntrusted && !shedOne(null)) {
      counters.refused++;
      return void s.destroy();
    }
    if ((perPeer.get(peer) ?? 0) >= limits.maxUntrustedPerPeer && !shedOne(peer)) {
      counters.refused++;
      return void s.destroy();
    }
    open.set(s, { peer, trusted: false, inFlight: 0 });
    untrusted++;
    perPeer.set(peer, (perPeer.get(peer) ?? 0) + 1);
    s.once('close', () => forget(s));
  });

  // A request Node's parser refuses (bad header bytes, a body cut short) gets a 400 when the
  // socket can still take one; the default does the same but a broken socket must not throw. A
  // request that timed out (headersTimeout / requestTimeout) gets a 408, counted.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      counters.requestTimeouts++;
      if (socket.writable) return void socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
      return void socket.destroy();
    }
    if (isClientAbort(err)) counters.clientAborts++;
    if (socket.writable && !(socket as { _httpMessage?: unknown })._httpMessage) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  return {
    counters,
    trust(s) {
      const t = open.get(s);
      if (!t || t.trusted) return;
      t.trusted = true;
      untrusted--;
      perPeer.set(t.peer, (perPeer.get(t.peer) ?? 1) - 1);
    },
    busy(s) {
      const t = open.get(s);
      if (t) t.inFlight++;
    },
    idle(s) {
      const t = open.get(s);
      if (t && t.inFlight > 0) t.inFlight--;
    },
  };
}

/** Whether `e` is the client going away mid-request (an aborted upload), not a fault of serve. */
export function isClientAbort(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'ECONNABORTED' || code === 'EPIPE' || e.message === 'aborted';
}

/** One line for serve's log when it stops, or null when nothing was counted. */
export function countersLine(c: ConnectionCounters): string | null {
  if (!c.clientAborts && !c.requestTimeouts && !c.shed && !c.refused) return null;
  return `gpuflow serve: ${c.clientAborts} client aborts, ${c.requestTimeouts} request timeouts, ${c.shed} idle connections shed, ${c.refused} connections refused at the limit`;
}
