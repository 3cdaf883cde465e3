/**
 * The attached run's HTTP calls to serve (main/cli/attach.ts says when and how a run attaches),
 * through node:http: `fetch` would load undici first (about 30 ms of CPU on the 2-core build
 * machine, on the attached run's critical path; bench/startup/attach.mjs). No keep-alive
 * (agent: false): an idle pooled socket held the process open after the result (the exit came
 * 0.1-0.4 s after the command's end on the 2-core build machine). Kept apart from the run's
 * message schemas so the request goes out before those load.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import type { ServeFile } from '../api/serve-file';

/** How long serve may take to accept the connection before the run goes local. */
export const CONNECT_MS = 3000;

/** serve could not take the run (not reachable, runs elsewhere): run locally. */
export class PoolUnavailable extends Error {}

/** Sends one request to serve with its token (`body` as JSON); `onResponse` gets the answer's head. */
export function send(pool: ServeFile, method: string, route: string, body: unknown, onResponse: (res: IncomingMessage) => void): ClientRequest {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string | number> = { authorization: `Bearer ${pool.token}` };
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  const req = request(`${pool.origin}${route}`, { method, headers, agent: false }, onResponse);
  req.end(payload);
  return req;
}

/** An answer's whole body, as JSON (a body that is not JSON: its text as `{ error }`). */
export function readJson(res: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    res.on('data', (d: Buffer) => parts.push(d));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      try {
        resolve(JSON.parse(text));
      } catch {
        resolve({ error: text.trim() });
      }
    });
  });
}

/** One HTTP call to serve: its status and JSON answer. */
export function call(pool: ServeFile, method: string, route: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = send(pool, method, route, body, (res) => readJson(res).then((json) => resolve({ status: res.statusCode ?? 0, json }), reject));
    req.on('error', reject);
  });
}
