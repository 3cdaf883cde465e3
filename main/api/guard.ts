/**
 * The checks every serve request and upgrade passes before any route sees it (issue 19), in one
 * place so routes added later get them too:
 *  - the URL is parsed against a fixed base, never the Host header, and a malformed one is a 400;
 *  - Host must name this server (its bound address or a loopback name, with its port): a page on
 *    a rebound DNS name that points at 127.0.0.1 is refused;
 *  - /api requests and upgrades must be same-origin: an Origin that is not this server, or a
 *    Sec-Fetch-Site other than same-origin / none, is a 403 (SameSite cookies ignore ports, so
 *    another 127.0.0.1 port is "same-site" to a browser);
 *  - a request with a body must say application/json: a cross-origin page can only send
 *    text/plain, form or multipart bodies without a CORS preflight, which serve never grants.
 * Everything here is pure over the request's headers; http.ts turns the thrown ApiError into the
 * response.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { ApiError } from './api-error';

export interface Bound {
  host: string;
  port: number;
}

/** The request's URL; only its path and query are the client's. */
export function requestUrl(req: IncomingMessage): URL {
  const raw = req.url ?? '/';
  if (!raw.startsWith('/') || raw.startsWith('//')) throw new ApiError(400, 'malformed request target');
  try {
    return new URL(raw, 'http://gpuflow.invalid');
  } catch {
    throw new ApiError(400, 'malformed request target');
  }
}

/** `name[:port]` of a Host header (names lower-cased, IPv6 in brackets), or null when malformed. */
export function parseHost(h: string): { name: string; port: number | null } | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253})(?::(\d{1,5}))?$/.exec(h);
  if (!m) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && port > 65535) return null;
  return { name: m[1].toLowerCase(), port };
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '']);

const bracket = (h: string) => (isIP(h) === 6 ? `[${h}]` : h.toLowerCase());

/**
 * The request's Host, checked against the bound address: the port must be ours, the name a
 * loopback name or the bound host; bound to a wildcard, any IP literal is ours too (a DNS name
 * never is, which is what stops rebinding). Returns the Host as sent.
 */
export function checkHost(req: IncomingMessage, bound: Bound): string {
  const raw = req.headers.host;
  if (typeof raw !== 'string' || raw === '') throw new ApiError(400, 'a Host header is required');
  const h = parseHost(raw);
  if (!h) throw new ApiError(400, 'malformed Host header');
  if ((h.port ?? 80) !== bound.port) throw new ApiError(403, `Host ${raw} is not this server (port ${bound.port})`);
  const name = h.name;
  const bare = name.startsWith('[') ? name.slice(1, -1) : name;
  const ok = LOOPBACK_NAMES.has(name) || name === bracket(bound.host) || (WILDCARD.has(bound.host) && isIP(bare) !== 0);
  if (!ok) throw new ApiError(403, `Host ${raw} is not this server: use 127.0.0.1, localhost or the bound address`);
  return raw;
}

/** Refuses a request another origin's page made the browser send (null when it is same-origin). */
export function checkSameOrigin(req: IncomingMessage, host: string): void {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let same = false;
    try {
      const o = new URL(origin);
      same = o.protocol === 'http:' && o.host === host.toLowerCase();
    } catch {
      same = false;
    }
    if (!same) throw new ApiError(403, `cross-origin request refused (Origin ${String(origin).slice(0, 100)})`);
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw new ApiError(403, `cross-origin request refused (Sec-Fetch-Site: ${String(site).slice(0, 40)})`);
}

/** A request that carries a body must declare it JSON. */
export function checkJsonBody(req: IncomingMessage): void {
  const length = req.headers['content-length'];
  const hasBody = (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return;
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') throw new ApiError(415, `request bodies must be application/json (got ${type || 'no content-type'})`);
}
