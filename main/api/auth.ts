/**
 * serve's access rules. A random token (printed at start) is required for every request and
 * WebSocket. The page's scripts send it as a Bearer header kept in memory (renderer/api); the
 * page's `?token=` is also traded for an HttpOnly, SameSite=Strict cookie, but only so the
 * browser can load the UI's own static files (script, CSS) — the cookie never authorizes /api.
 * Cookies ignore ports, so a page on any other 127.0.0.1 port could otherwise ride it; the
 * cookie's name carries the port so two serves on one host do not overwrite each other's.
 * Every /api request and upgrade must be same-origin (Origin, Sec-Fetch-Site) — see guard.ts.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The cookie's name for the server on `port`. */
export function cookieName(port: number): string {
  return `gpuflow_token_${port}`;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Whether any cookie named `name` carries `token`. Values are compared in their encoded form
 * (what Set-Cookie wrote), never percent-decoded: a malformed value planted by another page is
 * just a wrong value, not a crash (issue 19), and a planted duplicate cannot shadow the real one.
 */
export function cookieHasToken(req: IncomingMessage, name: string, token: string): boolean {
  const header = req.headers.cookie ?? '';
  const want = encodeURIComponent(token);
  let ok = false;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    if (same(part.slice(eq + 1).trim(), want)) ok = true;
  }
  return ok;
}

/** The token a request presents itself (Authorization header or ?token=), cookies aside. */
export function presentedToken(req: IncomingMessage, url: URL): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice(7);
  return url.searchParams.get('token');
}

/**
 * Whether the request carries the token. `allowCookie` only for the UI's static files: the API
 * and the WebSocket need the token itself, so a request the browser sends on its own (with
 * cookies) from another page carries nothing that authorizes it.
 */
export function authorized(req: IncomingMessage, url: URL, token: string, cookie: { name: string } | null): boolean {
  const t = presentedToken(req, url);
  if (t !== null) return same(t, token);
  return cookie !== null && cookieHasToken(req, cookie.name, token);
}

export function contentSecurityPolicy(host: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    // React Flow positions nodes with inline style attributes.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `connect-src 'self' ws://${host}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join('; ');
}
