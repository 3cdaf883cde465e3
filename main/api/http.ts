/**
 * serve: the API (common/api.ts) over HTTP + WebSocket, and the built UI (out/renderer) as static
 * files. Every request needs the token; the WebSocket streams engine events from a sequence number
 * so a reconnecting renderer resumes without losing events.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { formatIssues } from '../../common/messages';
import { WorkflowError, WorkflowErrors } from '../engine/errors';
import { authorized, contentSecurityPolicy, cookieName } from './auth';
import { countersLine, guardConnections, isClientAbort, limitsFromEnv } from './connections';
import { streamEvents } from './event-stream';
import { loopDelayMonitor } from './loop-delay';
import { checkHost, checkJsonBody, checkSameOrigin, requestUrl } from './guard';
import { scanJsonBody } from './json-body';
import { benchCancelRequest, benchRequest, cancelRunRequest, clusterRequest, clusterTestRequest, historyQuery, queueRequest, runRequest, startRunRequest } from './requests';
import { DaskSetupError } from '../dask/interpreter';
import { ApiError } from './api-error';
import type { GpuflowService } from './service';
import { abortOnClose } from './abort-on-close';
import { CompressedFiles, compressible, pickEncoding } from './static-compress';

const MAX_BODY = 16 * 1024 * 1024;
const DRAIN_LIMIT = 4 * MAX_BODY;
/** Workflow documents nest a few levels; 64 leaves room and keeps every later recursive walk safe. */
const MAX_DEPTH = 64;
/** Values in one body (commas and openers counted): a workflow is thousands; a million is refused before JSON.parse. */
const MAX_ELEMENTS = 1_000_000;
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json', '.woff2': 'font/woff2' };

export function rendererDir(): string {
  if (process.env.GPUFLOW_RENDERER_DIR) return process.env.GPUFLOW_RENDERER_DIR;
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../out/renderer');
}

/**
 * The body as JSON. Over MAX_BODY, the rest is read and discarded (up to DRAIN_LIMIT) so the
 * client, still uploading, receives the 413 rather than a reset connection; past that it is cut.
 */
function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const tooBig = () => new ApiError(413, `request body over ${MAX_BODY} bytes`);
    if (Number(req.headers['content-length'] ?? 0) > DRAIN_LIMIT) return reject(tooBig());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
      else if (chunks.length) chunks.length = 0;
      if (size > DRAIN_LIMIT) reject(tooBig());
    });
    req.on('end', () => {
      if (size > MAX_BODY) return reject(tooBig());
      const raw = Buffer.concat(chunks);
      const problem = scanJsonBody(raw, MAX_DEPTH, MAX_ELEMENTS);
      if (problem?.kind === 'deep') return reject(new ApiError(400, `${problem.path}: nested deeper than ${MAX_DEPTH} levels`));
      if (problem?.kind === 'elements') return reject(new ApiError(413, `request body has more than ${MAX_ELEMENTS} JSON values`));
      try {
        resolve(raw.length ? JSON.parse(raw.toString('utf8')) : {});
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

/** A Dask connection that fails is the caller's problem to fix (address, install): 400 with the cause. */
async function daskCall<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof DaskSetupError) throw new ApiError(400, e.message, [e.code]);
    throw e;
  }
}

export function serve(svc: GpuflowService, opts: ServeOptions): Promise<Served> {
  const staticDir = rendererDir();
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };

  async function api(req: IncomingMessage, url: URL, signal: AbortSignal): Promise<[number, unknown]> {
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
        return [200, await svc.validateAsync(b.doc, b.params, signal)];
      }
      case 'POST /runs': {
        const b = parse(startRunRequest, await readBody(req));
        const started = await svc.runAsync(b.doc, { params: b.params, node: b.node, reuse: b.reuse, signal });
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
      case 'POST /runs/:id/cancel': {
        const b = parse(cancelRunRequest, await readBody(req));
        return [200, { cancelled: svc.cancel(parts[1], b.reason) }];
      }
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
      case 'GET /cluster':
        return [200, svc.cluster()];
      case 'PUT /cluster': {
        const b = parse(clusterRequest, await readBody(req));
        return [200, await daskCall(() => svc.selectCluster(b.address))];
      }
      case 'POST /cluster/test': {
        const b = parse(clusterTestRequest, await readBody(req));
        return [200, await daskCall(() => svc.testCluster(b.address))];
      }
      case 'GET /bench/progress':
        return [200, svc.benchProgress()];
      case 'POST /bench/cancel': {
        const b = parse(benchCancelRequest, await readBody(req));
        return [200, { cancelled: svc.cancelBench(b.benchId) }];
      }
      case 'GET /benchmarks':
        return [200, svc.benchmarks(url.searchParams.get('workflow') ?? undefined)];
      default:
        throw new ApiError(404, `no API route ${m} ${url.pathname}`);
    }
  }

  const compressed = new CompressedFiles();

  function serveStatic(req: IncomingMessage, res: ServerResponse, url: URL, cookie: string): void {
    let rel: string;
    try {
      rel = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
    } catch {
      throw new ApiError(400, 'malformed percent-encoding in the path');
    }
    if (rel.includes('\0')) throw new ApiError(400, 'NUL in the path');
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
    // The page trades its ?token= for a cookie so the browser can load its scripts and styles;
    // the API never accepts this cookie (auth.ts).
    const token = url.searchParams.get('token');
    if (token) headers['set-cookie'] = `${cookie}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
    const enc = compressible(headers['content-type']) ? pickEncoding(req.headers['accept-encoding']) : null;
    if (enc) {
      const st = statSync(file);
      compressed.get(file, st, enc).then(
        (body) => {
          res.writeHead(200, { ...headers, 'content-encoding': enc, vary: 'Accept-Encoding', 'content-length': String(body.length) });
          res.end(req.method === 'HEAD' ? undefined : body);
        },
        () => res.destroy(),
      );
      return;
    }
    if (compressible(headers['content-type'])) headers.vary = 'Accept-Encoding';
    res.writeHead(200, headers);
    const stream = createReadStream(file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }

  const bound = { host: opts.host, port: opts.port };
  const fail = (res: ServerResponse, e: unknown) => {
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
      process.stderr.write(`gpuflow serve: ${req500(e)}\n`);
      send(res, 500, { error: 'internal error (logged by serve)' });
    }
  };
  const req500 = (e: unknown) => (e instanceof Error ? (e.stack ?? e.message) : String(e));

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
    api(req, url, abortOnClose(res)).then(
      ([status, body]) => send(res, status, body),
      (e: unknown) => fail(res, e),
    );
  }

  const server = http.createServer((req, res) => {
    conns.busy(req.socket);
    res.once('close', () => conns.idle(req.socket));
    try {
      handle(req, res);
    } catch (e) {
      fail(res, e);
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

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (status: number, text: string) => {
      if (socket.writable) socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\n\r\n`);
      socket.destroy();
    };
    socket.on('error', () => socket.destroy());
    try {
      const url = requestUrl(req);
      const host = checkHost(req, bound);
      checkSameOrigin(req, host);
      if (url.pathname !== '/api/events' || !authorized(req, url, opts.token, null)) return refuse(403, 'Forbidden');
      // ?since=live: only what happens from now on (an attached `gpuflow run` wants no backlog).
      const sinceText = url.searchParams.get('since');
      const since = sinceText === 'live' ? svc.engine.bus.lastSeq : Number(sinceText ?? 0);
      if (socket instanceof net.Socket) conns.trust(socket);
      wss.handleUpgrade(req, socket, head, (ws) => streamEvents(ws, svc, Number.isSafeInteger(since) && since > 0 ? since : 0));
    } catch (e) {
      if (e instanceof ApiError) return refuse(e.status, e.status === 400 ? 'Bad Request' : 'Forbidden');
      process.stderr.write(`gpuflow serve (upgrade): ${req500(e)}\n`);
      refuse(500, 'Internal Server Error');
    }
  });

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
            for (const c of wss.clients) c.terminate();
            wss.close();
            server.close(() => r());
            server.closeAllConnections();
            for (const line of [countersLine(conns.counters), loop.report()]) if (line) process.stderr.write(`${line}\n`);
          }),
      });
    });
  });
}
