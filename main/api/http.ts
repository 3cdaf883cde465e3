/**
 * serve: the API (common/api.ts) over HTTP + WebSocket, and the built UI (out/renderer) as static
 * files. Every request needs the token; the WebSocket streams engine events from a sequence number
 * so a reconnecting renderer resumes without losing events.
 *
 * This file is serve's lifecycle: the server with its guards, one request handler that checks a
 * request and hands it to the routing table (routes.ts) or the static files (static-files.ts),
 * the answer to a failure, the WebSocket upgrade (events-upgrade.ts), listen and close.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WorkflowError, WorkflowErrors } from '../engine/errors';
import { abortOnClose } from './abort-on-close';
import { ApiError } from './api-error';
import { answerAttachedRun, ATTACHED_RUN_ROUTE } from './attached-run';
import { authorized, contentSecurityPolicy, cookieName } from './auth';
import { countersLine, guardConnections, isClientAbort, limitsFromEnv, type ConnectionGuard } from './connections';
import { eventsUpgrade } from './events-upgrade';
import { checkHost, checkJsonBody, checkSameOrigin, requestUrl, type Bound } from './guard';
import { loopDelayMonitor } from './loop-delay';
import { answerApi } from './routes';
import type { GpuflowService } from './service';
import { rendererDir, staticFiles } from './static-files';

export { rendererDir };

export interface ServeOptions {
  host: string;
  port: number;
  token: string;
}

export interface Served {
  url: string;
  port: number;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** The answer to a request that failed: its status for a known error, a logged 500 for anything else. */
function answerFailure(res: ServerResponse, e: unknown, conns: ConnectionGuard): void {
  if (isClientAbort(e)) {
    // The client went away mid-request: counted, not logged as serve's fault (issue 29.4).
    conns.counters.clientAborts++;
    return void res.destroy();
  }
  if (res.headersSent) return void res.destroy();
  if (e instanceof ApiError) {
    // After a 413 the rest of the body may be unread: close instead of keeping the connection.
    if (e.status === 413) res.setHeader('connection', 'close');
    send(res, e.status, { error: e.message, errors: e.errors });
  } else if (e instanceof WorkflowErrors) send(res, 400, { error: 'invalid workflow', errors: e.errors.map((x) => x.message) });
  else if (e instanceof WorkflowError) send(res, 400, { error: 'invalid workflow', errors: [e.message] });
  else {
    // The guard: anything unexpected is logged and answered, never allowed to take serve down.
    process.stderr.write(`gpuflow serve: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    send(res, 500, { error: 'internal error (logged by serve)' });
  }
}

export function serve(svc: GpuflowService, opts: ServeOptions): Promise<Served> {
  const serveStatic = staticFiles(rendererDir());
  const bound: Bound = { host: opts.host, port: opts.port };

  /** Checks a request (host, origin, token) and answers it from the API or the static files. */
  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = requestUrl(req);
    const host = checkHost(req, bound);
    res.setHeader('content-security-policy', contentSecurityPolicy(host));
    res.setHeader('x-frame-options', 'DENY');
    res.setHeader('referrer-policy', 'no-referrer');
    const isApi = url.pathname === '/api' || url.pathname.startsWith('/api/');
    const cookie = cookieName(bound.port);
    if (isApi) checkSameOrigin(req, host);
    if (!authorized(req, url, opts.token, isApi ? null : { name: cookie })) {
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end('gpuflow: a token is required (open the URL that `gpuflow serve` printed)\n');
      return;
    }
    conns.trust(req.socket);
    if (!isApi) {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new ApiError(405, `${req.method} is not allowed here`);
      return serveStatic(req, res, url, cookie);
    }
    checkJsonBody(req);
    // An attached `gpuflow run`: its answer streams the run (attached-run.ts), not one JSON body.
    if (req.method === 'POST' && url.pathname === ATTACHED_RUN_ROUTE) return void answerAttachedRun(svc, req, res, abortOnClose(res)).catch((e: unknown) => answerFailure(res, e, conns));
    answerApi(svc, req, url, abortOnClose(res)).then(
      (body) => send(res, 200, body),
      (e: unknown) => answerFailure(res, e, conns),
    );
  }

  const server = http.createServer((req, res) => {
    conns.busy(req.socket);
    res.once('close', () => conns.idle(req.socket));
    try {
      handle(req, res);
    } catch (e) {
      answerFailure(res, e, conns);
    }
  });
  // Connection caps, and the answer to what Node's parser refuses or times out (connections.ts).
  const conns = guardConnections(server, limitsFromEnv());
  const loop = loopDelayMonitor();
  // CONNECT (proxy tunnels) is nothing serve does; without a listener Node leaves the socket open.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\n\r\n');
  });
  // Slowloris-style idle sockets: a request must finish arriving within a minute.
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  const events = eventsUpgrade(svc, opts.token, bound, conns);
  server.on('upgrade', events.upgrade);

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : opts.port;
      bound.port = port; // --port 0: Host must name the port the OS chose
      const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
      resolve({
        url: `http://${host}:${port}/?token=${opts.token}`,
        port,
        close: () =>
          new Promise((r) => {
            events.close();
            server.close(() => r());
            server.closeAllConnections();
            for (const line of [countersLine(conns.counters), loop.report()]) if (line) process.stderr.write(`${line}\n`);
          }),
      });
    });
  });
}
