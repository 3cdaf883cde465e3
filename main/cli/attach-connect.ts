/**
 * The attached run's connection to serve (main/cli/attach.ts says when and how a run attaches):
 * the event stream and serve's cluster query, begun by main/cli.ts as soon as it finds the warm
 * pool, and the HTTP calls the run makes. Kept apart from the run's message schemas so the two
 * requests go out before those load (they load while serve answers).
 */
import { request } from 'node:http';
import WebSocket from 'ws';
import type { ServeFile } from '../api/serve-file';
import { traceStart } from '../../common/start-trace';

/** How long serve may take to accept the stream before the run goes local. */
const CONNECT_MS = 3000;

/** serve could not take the run (not reachable, runs elsewhere): run locally. */
export class PoolUnavailable extends Error {}

function connectStream(pool: ServeFile): Promise<WebSocket> {
  const ws = new WebSocket(`${pool.origin.replace(/^http/, 'ws')}/api/events?since=live`, { headers: { authorization: `Bearer ${pool.token}` } });
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      ws.terminate();
      reject(new PoolUnavailable(`serve at ${pool.origin} did not answer in ${CONNECT_MS} ms`));
    }, CONNECT_MS);
    ws.once('open', () => {
      clearTimeout(t);
      resolve(ws);
    });
    ws.once('error', (e) => {
      clearTimeout(t);
      reject(new PoolUnavailable(`cannot reach serve at ${pool.origin}: ${e.message}`));
    });
  });
}

/**
 * One HTTP call to serve through node:http: `fetch` would load undici first (about 30 ms of CPU on
 * the 2-core build machine, on the attached run's critical path; bench/startup/attach.mjs).
 * No keep-alive (agent: false): an idle pooled socket held the process open after the result (the
 * exit came 0.1-0.4 s after the command's end on the 2-core build machine).
 */
export function call(pool: ServeFile, method: string, route: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string | number> = { authorization: `Bearer ${pool.token}` };
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  return new Promise((resolve, reject) => {
    const req = request(`${pool.origin}${route}`, { method, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = { error: text.trim() };
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The event stream and serve's cluster answer, asked for as soon as the warm pool is found. */
export interface Preconnection {
  connected: Promise<{ ws: WebSocket; cluster: { status: number; json: unknown } }>;
  /** Closes the stream (idempotent): a run that does not attach must not be held open by it. */
  close(): void;
}

/**
 * Opens the event stream and asks serve's cluster at once: main/cli.ts starts this when it finds
 * the warm pool, so the connection is made while the workflow is read and validated (about 0.1 s
 * of an attached run's start, issue 30 item 3) instead of after.
 */
export function preconnect(pool: ServeFile): Preconnection {
  let closed = false;
  const requested = Promise.all([
    connectStream(pool),
    call(pool, 'GET', '/api/cluster').catch((e: unknown) => {
      throw new PoolUnavailable(`cannot reach serve at ${pool.origin}: ${e instanceof Error ? e.message : String(e)}`);
    }),
  ]);
  // Both requests are out (the stream's upgrade and the cluster query): what this process did
  // before is its own start (bench/startup/attach.mjs, `firstRequest`).
  traceStart('attach-requested');
  const connected = requested
    .catch((e: unknown) => {
      throw e instanceof PoolUnavailable ? e : new PoolUnavailable(String(e));
    })
    .then(([ws, cluster]) => {
      traceStart('attach-connected');
      if (closed) ws.terminate();
      return { ws, cluster };
    });
  // Its failure is the attach's, reported there (or never, for a run that does not attach).
  connected.catch(() => undefined);
  return {
    connected,
    close: () => {
      closed = true;
      void connected.then(({ ws }) => ws.terminate(), () => undefined);
    },
  };
}
