/**
 * `serve` compresses the UI's static files as the browser allows: brotli before gzip, q=0 refused,
 * nothing for a client that asks for none or for already-compressed images; the bytes decompress
 * to the file on disk (node:zlib as the oracle). Accept-Encoding parsing is checked by itself too.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pickEncoding } from '../../main/api/static-compress';
import { startServe, tempDir, type Serving } from '../reliability/helpers';

let s: Serving;
let dir: string;

function get(p: string, acceptEncoding?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${s.base}${p}${p.includes('?') ? '&' : '?'}token=${s.token}`, { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
  });
}

beforeAll(async () => {
  dir = tempDir();
  mkdirSync(path.join(dir, 'ui/assets'), { recursive: true });
  writeFileSync(path.join(dir, 'ui/index.html'), '<!doctype html><title>ui</title><script src="/assets/app.js"></script>');
  // 200 KB of script-like text.
  writeFileSync(path.join(dir, 'ui/assets/app.js'), Array.from({ length: 4000 }, (_, i) => `export const value${i} = ${i} * 2; // line ${i}\n`).join(''));
  writeFileSync(path.join(dir, 'ui/logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 2000 }, (_, i) => i % 256)]));
  s = await startServe(['--virtual-gpus', '0', '--backend', 'js', '--threads', '1', '--db', path.join(dir, 'gpuflow.db')], { GPUFLOW_RENDERER_DIR: path.join(dir, 'ui') });
}, 90_000);

afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('serve compresses static files', () => {
  it('sends brotli, then gzip, then the file itself, each decompressing to the file', async () => {
    const raw = readFileSync(path.join(dir, 'ui/assets/app.js'));
    const br = await get('/assets/app.js', 'gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(raw.length / 4);
    expect(zlib.brotliDecompressSync(br.body).equals(raw)).toBe(true);
    // The cached copy is the same bytes.
    expect((await get('/assets/app.js', 'br')).body.equals(br.body)).toBe(true);

    const gz = await get('/assets/app.js', 'br;q=0, gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).equals(raw)).toBe(true);

    const plain = await get('/assets/app.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(raw)).toBe(true);

    const html = await get('/', 'gzip');
    expect(html.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(html.body).toString()).toContain('<title>ui</title>');

    const png = await get('/logo.png', 'br, gzip');
    expect(png.headers['content-encoding']).toBeUndefined();
    expect(png.body.equals(readFileSync(path.join(dir, 'ui/logo.png')))).toBe(true);
  });
});

describe('pickEncoding', () => {
  it('prefers brotli, honours q-values and *', () => {
    expect(pickEncoding(undefined)).toBeNull();
    expect(pickEncoding('identity')).toBeNull();
    expect(pickEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(pickEncoding('br;q=0.5, gzip')).toBe('gzip');
    expect(pickEncoding('br;q=0, gzip;q=0')).toBeNull();
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding('*;q=0.1, gzip')).toBe('gzip');
    expect(pickEncoding('x-gzip')).toBe('gzip');
    expect(pickEncoding(' GZIP ; q=1 ')).toBe('gzip');
  });
});
