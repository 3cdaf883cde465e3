/**
 * The WebSocket upgrade of serve: only /api/events, from the same origin, with the token; the
 * socket then streams engine events from `since` (event-stream.ts). Anything else is answered
 * with a status line and the socket closed (a refused upgrade never reaches the HTTP handler).
 */
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { ApiError } from './api-error';
import { authorized } from './auth';
import type { ConnectionGuard } from './connections';
import { streamEvents } from './event-stream';
import { checkHost, checkSameOrigin, requestUrl, type Bound } from './guard';
import type { GpuflowService } from './service';

export interface EventsUpgrade {
  /** The server's 'upgrade' listener. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Ends every event socket (serve's close). */
  close(): void;
}

export function eventsUpgrade(svc: GpuflowService, token: string, bound: Bound, conns: ConnectionGuard): EventsUpgrade {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  return {
    upgrade(req, socket, head) {
      const refuse = (status: number, text: string) => {
        if (socket.writable) socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\n\r\n`);
        socket.destroy();
      };
      socket.on('error', () => socket.destroy());
      try {
        const url = requestUrl(req);
        const host = checkHost(req, bound);
        checkSameOrigin(req, host);
        if (url.pathname !== '/api/events' || !authorized(req, url, token, null)) return refuse(403, 'Forbidden');
        // ?since=live: only what happens from now on (an attached `gpuflow run` wants no backlog).
        const sinceText = url.searchParams.get('since');
        const since = sinceText === 'live' ? svc.engine.bus.lastSeq : Number(sinceText ?? 0);
        if (socket instanceof net.Socket) conns.trust(socket);
        wss.handleUpgrade(req, socket, head, (ws) => streamEvents(ws, svc, Number.isSafeInteger(since) && since > 0 ? since : 0));
      } catch (e) {
        if (e instanceof ApiError) return refuse(e.status, e.status === 400 ? 'Bad Request' : 'Forbidden');
        process.stderr.write(`gpuflow serve (upgrade): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
        refuse(500, 'Internal Server Error');
      }
    },
    close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
    },
  };
}
