/**
 * serve: the API (common/api.ts) over HTTP + WebSocket, and the built UI (out/renderer) as static
 * files. Every request needs the token; the WebSocket streams engine events from a sequence number
 * so a reconnecting renderer resumes without losing events.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { formatIssues } from '../../common/messages';
import { WorkflowError, WorkflowErrors } from '../engine/errors';
import { authorized, contentSecurityPolicy, COOKIE, sameOrigin } from './auth';
import { benchRequest, historyQuery, queueRequest, runRequest, startRunRequest } from './requests';
import { ApiError, type GpuflowService } from './service';

const MAX_BODY = 16 * 1024 * 1024;
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json', '.woff2': 'font/woff2' };

export function rendererDir(): string {
  if (process.env.GPUFLOW_RENDERER_DIR) return process.env.GPUFLOW_RENDERER_DIR;
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../out/renderer');
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new ApiError(413, `request body over ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {});
      } catch (e) {
        reject(new ApiError(400, `request body is not JSON: ${e instanceof Error ? e.message : String(e)}`));
      }
    });
    req.on('error', reject);
  });
}

function parse<T>(schema: { safeParse(x: unknown): { success: true; data: T } | { success: false; error: import('zod').ZodError } }, x: unknown): T {
  const r = schema.safeParse(x);
  if (!r.success) throw new ApiError(400, `bad request: ${formatIssues(r.error)}`);
  return r.data;
}

function idParam(s: string): number {
  if (!/^\d+$/.test(s)) throw new ApiError(400, `'${s}' is not a run id`);
  return Number(s);
}

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

export function serve(svc: GpuflowService, opts: ServeOptions): Promise<Served> {
  const staticDir = rendererDir();
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };

  async function api(req: IncomingMessage, url: URL): Promise<[number, unknown]> {
    const parts = url.pathname.split('/').filter(Boolean).slice(1); // after "api"
    const m = req.method ?? 'GET';
    // /runs/<id>/... and /workers/<id>/...: the second segment is an id.
    const hasId = (parts[0] === 'runs' || parts[0] === 'workers' || parts[0] === 'queue') && parts.length >= 2;
    const route = `${m} /${parts.map((p, i) => (hasId && i === 1 ? ':id' : p)).join('/')}`;
    switch (route) {
      case 'GET /catalog':
        return [200, svc.catalog()];
      case 'GET /devices':
        return [200, svc.devices()];
      case 'GET /workers':
        return [200, svc.workers()];
      case 'POST /workers/:id/restart':
        svc.restartWorker(parts[1]);
        return [200, { ok: true }];
      case 'GET /examples':
        return [200, await svc.examples()];
      case 'POST /validate': {
        const b = parse(runRequest, await readBody(req));
        return [200, await svc.validateAsync(b.doc, b.params)];
      }
      case 'POST /runs': {
        const b = parse(startRunRequest, await readBody(req));
        const started = await svc.runAsync(b.doc, { params: b.params, node: b.node, reuse: b.reuse });
        started.done.catch(() => undefined);
        return [200, { runId: started.runId, storeId: started.storeId }];
      }
      case 'POST /queue': {
        const b = parse(queueRequest, await readBody(req));
        return [200, await svc.enqueue(b.doc, { params: b.params, node: b.node })];
      }
      case 'GET /queue':
        return [200, svc.queueEntries()];
      case 'DELETE /queue/:id':
        return [200, { removed: svc.removeQueued(parts[1]) }];
      case 'POST /runs/:id/cancel':
        return [200, { cancelled: svc.cancel(parts[1]) }];
      case 'GET /runs': {
        const q = parse(historyQuery, Object.fromEntries(url.searchParams));
        return [200, svc.history({ status: q.status, workflow: q.workflow, limit: q.limit ?? 100 })];
      }
      case 'GET /runs/:id':
        return [200, svc.getRun(idParam(parts[1]))];
      case 'GET /runs/:id/events':
        return [200, svc.runEvents(idParam(parts[1]))];
      case 'POST /runs/:id/replay': {
        const started = await svc.replay(idParam(parts[1]));
        started.done.catch(() => undefined);
        return [200, { runId: started.runId, storeId: started.storeId }];
      }
      case 'GET /compare':
        return [200, svc.compare(idParam(url.searchParams.get('a') ?? ''), idParam(url.searchParams.get('b') ?? ''))];
      case 'POST /bench': {
        const b = parse(benchRequest, await readBody(req));
        const started = svc.startBench(b.doc, { params: b.params, repeat: b.repeat, warmup: b.warmup });
        started.done.catch(() => undefined);
        return [200, { benchId: started.benchId }];
      }
      case 'GET /benchmarks':
        return [200, svc.benchmarks(url.searchParams.get('workflow') ?? undefined)];
      default:
        throw new ApiError(404, `no API route ${m} ${url.pathname}`);
    }
  }

  function serveStatic(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const rel = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
    const file = path.resolve(staticDir, `.${rel}`);
    if (!file.startsWith(staticDir + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
      if (!existsSync(path.join(staticDir, 'index.html'))) {
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end(`The UI is not built (${staticDir} is missing): run \`npm run build\`. The API is at /api.\n`);
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    const headers: Record<string, string> = { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'x-content-type-options': 'nosniff' };
    // The page trades its ?token= for a cookie so its own requests need no token in the URL.
    const token = url.searchParams.get('token');
    if (token) headers['set-cookie'] = `${COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
    res.writeHead(200, headers);
    createReadStream(file).pipe(res);
    void req;
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    res.setHeader('content-security-policy', contentSecurityPolicy(req.headers.host ?? `${opts.host}:${opts.port}`));
    res.setHeader('x-frame-options', 'DENY');
    res.setHeader('referrer-policy', 'no-referrer');
    if (!authorized(req, url, opts.token)) {
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end('gpuflow: a token is required (open the URL that `gpuflow serve` printed)\n');
      return;
    }
    if (!url.pathname.startsWith('/api/')) return serveStatic(req, res, url);
    api(req, url).then(
      ([status, body]) => send(res, status, body),
      (e: unknown) => {
        if (e instanceof ApiError) send(res, e.status, { error: e.message, errors: e.errors });
        else if (e instanceof WorkflowErrors) send(res, 400, { error: 'invalid workflow', errors: e.errors.map((x) => x.message) });
        else if (e instanceof WorkflowError) send(res, 400, { error: 'invalid workflow', errors: [e.message] });
        else send(res, 500, { error: e instanceof Error ? e.message : String(e) });
      },
    );
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    if (url.pathname !== '/api/events' || !authorized(req, url, opts.token) || !sameOrigin(req)) {
      socket.write('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => stream(ws, Number(url.searchParams.get('since') ?? 0) || 0));
  });

  function stream(ws: WebSocket, since: number): void {
    const sendJson = (m: unknown) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
    };
    // Subscribe first, then replay the ring: an event emitted in between is sent once, in order.
    let replayedUpTo = since;
    const queued: unknown[] = [];
    let replaying = true;
    const unsubEvents = svc.subscribe((e) => {
      if (replaying) queued.push(e);
      else if (e.seq > replayedUpTo) sendJson(e);
    });
    const backlog = svc.engine.bus.since(since);
    if (!backlog.complete) sendJson({ type: 'log', seq: 0, t: Date.now(), level: 'warn', message: `events after ${since} were dropped from the buffer; history is in the store` });
    for (const e of backlog.events) {
      sendJson(e);
      replayedUpTo = e.seq;
    }
    replaying = false;
    for (const e of queued) if ((e as { seq: number }).seq > replayedUpTo) sendJson(e);
    const unsubResults = svc.onResult(sendJson);
    ws.on('close', () => {
      unsubEvents();
      unsubResults();
    });
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : opts.port;
      const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
      resolve({
        url: `http://${host}:${port}/?token=${opts.token}`,
        port,
        close: () =>
          new Promise((r) => {
            for (const c of wss.clients) c.terminate();
            wss.close();
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    });
  });
}
