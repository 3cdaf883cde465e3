/**
 * The API's routing table: one entry per `METHOD /path` (an id segment written `:id`), each a
 * function of the request to the JSON body of its 200 answer. Errors travel as exceptions
 * (ApiError for the client's mistakes) and serve (http.ts) turns them into status codes.
 */
import type { IncomingMessage } from 'node:http';
import { DaskSetupError } from '../dask/interpreter';
import { ApiError } from './api-error';
import { parseRequest, readBody } from './read-body';
import {
  benchCancelRequest,
  benchRequest,
  cancelRunRequest,
  clusterRequest,
  clusterTestRequest,
  historyQuery,
  queueRequest,
  runRequest,
  startRunRequest,
} from './requests';
import type { GpuflowService } from './service';
import { traceStart } from '../../common/start-trace';

/** What a route sees: the service, the request, its path segments after /api, and an abort on close. */
interface RouteRequest {
  svc: GpuflowService;
  req: IncomingMessage;
  url: URL;
  parts: string[];
  signal: AbortSignal;
}

type Route = (r: RouteRequest) => unknown;

function idParam(s: string): number {
  if (!/^\d+$/.test(s)) throw new ApiError(400, `'${s}' is not a run id`);
  return Number(s);
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

/** A started run or bench runs on after its answer; its failure is reported through events, not here. */
function detach<T extends { done: Promise<unknown> }>(started: T): T {
  started.done.catch(() => undefined);
  return started;
}

const ROUTES: Record<string, Route> = {
  'GET /catalog': ({ svc }) => svc.catalog(),
  'GET /devices': ({ svc }) => svc.devices(),
  'GET /workers': ({ svc }) => svc.workers(),
  'POST /workers/:id/restart': ({ svc, parts }) => {
    svc.restartWorker(parts[1]);
    return { ok: true };
  },
  'GET /examples': ({ svc }) => svc.examples(),
  'POST /validate': async ({ svc, req, signal }) => {
    const b = parseRequest(runRequest, await readBody(req));
    return svc.validateAsync(b.doc, b.params, signal);
  },
  'POST /runs': async ({ svc, req, signal }) => {
    const b = parseRequest(startRunRequest, await readBody(req));
    traceStart('api-run-read');
    const started = detach(await svc.runAsync(b.doc, { params: b.params, node: b.node, reuse: b.reuse, signal }));
    return { runId: started.runId, storeId: started.storeId };
  },
  'POST /queue': async ({ svc, req }) => {
    const b = parseRequest(queueRequest, await readBody(req));
    return svc.enqueue(b.doc, { params: b.params, node: b.node });
  },
  'GET /queue': ({ svc }) => svc.queueEntries(),
  'DELETE /queue/:id': ({ svc, parts }) => ({ removed: svc.removeQueued(parts[1]) }),
  'POST /runs/:id/cancel': async ({ svc, req, parts }) => {
    const b = parseRequest(cancelRunRequest, await readBody(req));
    return { cancelled: svc.cancel(parts[1], b.reason) };
  },
  'GET /runs': ({ svc, url }) => {
    const q = parseRequest(historyQuery, Object.fromEntries(url.searchParams));
    return svc.history({ status: q.status, workflow: q.workflow, limit: q.limit ?? 100 });
  },
  'GET /runs/:id': ({ svc, parts }) => svc.getRun(idParam(parts[1])),
  'GET /runs/:id/events': ({ svc, parts }) => svc.runEvents(idParam(parts[1])),
  'POST /runs/:id/replay': async ({ svc, parts }) => {
    const started = detach(await svc.replay(idParam(parts[1])));
    return { runId: started.runId, storeId: started.storeId };
  },
  'GET /compare': ({ svc, url }) => svc.compare(idParam(url.searchParams.get('a') ?? ''), idParam(url.searchParams.get('b') ?? '')),
  'POST /bench': async ({ svc, req }) => {
    const b = parseRequest(benchRequest, await readBody(req));
    return { benchId: detach(svc.startBench(b.doc, { params: b.params, repeat: b.repeat, warmup: b.warmup })).benchId };
  },
  'GET /cluster': ({ svc }) => svc.cluster(),
  'PUT /cluster': async ({ svc, req }) => {
    const b = parseRequest(clusterRequest, await readBody(req));
    return daskCall(() => svc.selectCluster(b.address));
  },
  'POST /cluster/test': async ({ svc, req }) => {
    const b = parseRequest(clusterTestRequest, await readBody(req));
    return daskCall(() => svc.testCluster(b.address));
  },
  'GET /bench/progress': ({ svc }) => svc.benchProgress(),
  'GET /bench/events': ({ svc, url }) => svc.benchRunEvents(url.searchParams.get('bench') ?? ''),
  'POST /bench/cancel': async ({ svc, req }) => {
    const b = parseRequest(benchCancelRequest, await readBody(req));
    return { cancelled: svc.cancelBench(b.benchId) };
  },
  'GET /benchmarks': ({ svc, url }) => svc.benchmarks(url.searchParams.get('workflow') ?? undefined),
};

/** The table's key of a request: `GET /runs/:id` for GET /api/runs/7 (runs, workers and queue take an id). */
export function routeKey(method: string, pathname: string): { key: string; parts: string[] } {
  const parts = pathname.split('/').filter(Boolean).slice(1); // after "api"
  const hasId = (parts[0] === 'runs' || parts[0] === 'workers' || parts[0] === 'queue') && parts.length >= 2;
  return { key: `${method} /${parts.map((p, i) => (hasId && i === 1 ? ':id' : p)).join('/')}`, parts };
}

/** The JSON body of an API request's 200 answer; a route that does not exist is a 404. */
export async function answerApi(svc: GpuflowService, req: IncomingMessage, url: URL, signal: AbortSignal): Promise<unknown> {
  const method = req.method ?? 'GET';
  const { key, parts } = routeKey(method, url.pathname);
  const route = Object.hasOwn(ROUTES, key) ? ROUTES[key] : undefined;
  if (!route) throw new ApiError(404, `no API route ${method} ${url.pathname}`);
  return route({ svc, req, url, parts, signal });
}
