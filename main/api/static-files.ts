/**
 * The built UI (out/renderer) as static files: paths confined to the directory, the page's
 * ?token= traded for a cookie, compressible files sent compressed when the client accepts it.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError } from './api-error';
import { CompressedFiles, compressible, pickEncoding } from './static-compress';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export function rendererDir(): string {
  if (process.env.GPUFLOW_RENDERER_DIR) return process.env.GPUFLOW_RENDERER_DIR;
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../out/renderer');
}

export type StaticHandler = (req: IncomingMessage, res: ServerResponse, url: URL, cookie: string) => void;

/** Serves the files of `staticDir` (a missing UI build is a 503 that says how to build it). */
export function staticFiles(staticDir: string): StaticHandler {
  const compressed = new CompressedFiles();
  return (req, res, url, cookie) => {
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
  };
}
